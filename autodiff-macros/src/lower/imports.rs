//! The names `use` items inside a body bring into scope. A call by a bare
//! name finds its callee's derivative through a companion of that name as
//! the module declares it (`emit::body`), so a body-level `use` importing
//! a plain function under the name of an annotated one would pair the
//! student's value with another function's derivative. Such calls are
//! refused (`Reason::ImportedCallee`); calls by path are not affected.

use std::collections::HashSet;

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;

/// What the body's `use` items import from outside the standard library
/// (whose functions have no companions, and are called as written):
/// names, and the paths of globs.
#[derive(Default)]
pub struct Imports {
    names: HashSet<String>,
    globs: Vec<String>,
    /// Names imported from the standard library, which a glob's cannot
    /// shadow.
    standard: HashSet<String>,
}

impl Imports {
    /// Every `use` item anywhere in `block`.
    pub fn of(block: &syn::Block) -> Imports {
        let mut imports = Imports::default();
        imports.scan(block.to_token_stream());
        imports
    }

    /// Whether a call of `name` may be of something a `use` in the body
    /// imports: `Some(None)` for a named import, `Some(Some(path))` for a
    /// glob's.
    pub fn import_of(&self, name: &str) -> Option<Option<String>> {
        if self.names.contains(name) {
            return Some(None);
        }
        if self.standard.contains(name) {
            return None;
        }
        self.globs.first().map(|glob| Some(glob.clone()))
    }

    fn scan(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut at = 0;
        while at < trees.len() {
            match &trees[at] {
                TokenTree::Ident(ident) if ident == "use" => {
                    let end = trees[at..]
                        .iter()
                        .position(|tree| matches!(tree, TokenTree::Punct(p) if p.as_char() == ';'))
                        .map_or(trees.len(), |offset| at + offset);
                    let tree: TokenStream = trees[at + 1..end].iter().cloned().collect();
                    if let Ok(tree) = syn::parse2::<syn::UseTree>(tree) {
                        self.add(&tree, &mut Vec::new());
                    }
                    at = end + 1;
                }
                TokenTree::Group(group) => {
                    self.scan(group.stream());
                    at += 1;
                }
                _ => at += 1,
            }
        }
    }

    fn add(&mut self, tree: &syn::UseTree, path: &mut Vec<String>) {
        let standard = |path: &[String]| {
            path.first()
                .is_some_and(|root| matches!(root.as_str(), "std" | "core" | "alloc"))
        };
        match tree {
            syn::UseTree::Path(step) => {
                path.push(step.ident.to_string());
                self.add(&step.tree, path);
                path.pop();
            }
            // `use module::{self}` imports a module, which is not called.
            syn::UseTree::Name(name) if name.ident == "self" => {}
            syn::UseTree::Name(name) if standard(path) => {
                self.standard.insert(name.ident.to_string());
            }
            syn::UseTree::Name(name) => {
                self.names.insert(name.ident.to_string());
            }
            syn::UseTree::Rename(rename) if standard(path) => {
                self.standard.insert(rename.rename.to_string());
            }
            syn::UseTree::Rename(rename) => {
                self.names.insert(rename.rename.to_string());
            }
            syn::UseTree::Glob(_) if standard(path) => {}
            syn::UseTree::Glob(_) => self.globs.push(path.join("::")),
            syn::UseTree::Group(group) => {
                for item in &group.items {
                    self.add(item, path);
                }
            }
        }
    }
}
