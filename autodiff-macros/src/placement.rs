//! Where an annotated function without `self` sits: an attribute on one
//! function sees that function alone, so one on an associated function
//! (`impl Model { #[differentiable] fn loss(w: f64) -> f64 }`) would
//! generate free functions that name each other, which cannot sit in an
//! `impl`. The source file tells: the function's name is found at its line
//! and the braces around it are walked back to the block it is in. When
//! the file cannot be read (an old compiler, a generated function), the
//! answer is "no", and the expansion goes on as for a free function.

use std::path::Path;

/// Whether the function named by `ident` is declared directly in an
/// `impl` block of its source file.
pub fn in_impl(ident: &proc_macro2::Ident) -> bool {
    let span = ident.span();
    let line = span.start().line;
    let Some(path) = span.local_file() else {
        return false;
    };
    if line == 0 {
        return false;
    }
    declared_in_impl(&path, line, &ident.to_string())
}

fn declared_in_impl(path: &Path, line: usize, name: &str) -> bool {
    match std::fs::read_to_string(path) {
        Ok(text) => Scan::new(&text).block_of(line, name) == Some(Block::Impl),
        Err(_) => false,
    }
}

/// What a `{` opens, as far as this needs to know.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Block {
    Impl,
    Other,
}

/// A walk over source text that skips comments, strings and character
/// literals, and keeps the blocks open at each point.
struct Scan<'s> {
    chars: std::iter::Peekable<std::str::CharIndices<'s>>,
    text: &'s str,
    line: usize,
    open: Vec<Block>,
    /// The words of the current item's header since the last `{`, `}` or
    /// `;`, outside attributes.
    header: Vec<&'s str>,
}

impl<'s> Scan<'s> {
    fn new(text: &'s str) -> Scan<'s> {
        Scan {
            chars: text.char_indices().peekable(),
            text,
            line: 1,
            open: Vec::new(),
            header: Vec::new(),
        }
    }

    /// The block that directly holds `fn name` on line `line`, if found.
    fn block_of(mut self, line: usize, name: &str) -> Option<Block> {
        let mut previous_fn = false;
        while let Some((at, c)) = self.chars.next() {
            match c {
                '\n' => self.line += 1,
                '/' if self.next_is('/') => self.skip_line(),
                '/' if self.next_is('*') => self.skip_block_comment(),
                '"' => self.skip_string(),
                '\'' => self.skip_char_or_lifetime(),
                '#' if self.next_is('[') || self.next_is('!') => self.skip_attribute(),
                '{' => {
                    let block = if opens_impl(&self.header) {
                        Block::Impl
                    } else {
                        Block::Other
                    };
                    self.open.push(block);
                    self.header.clear();
                    previous_fn = false;
                }
                '}' => {
                    self.open.pop();
                    self.header.clear();
                    previous_fn = false;
                }
                ';' => {
                    self.header.clear();
                    previous_fn = false;
                }
                c if c.is_alphabetic() || c == '_' => {
                    let word = self.word(at);
                    if let Some(hashes) = raw_string_start(word, &mut self.chars) {
                        self.skip_raw_string(hashes);
                        continue;
                    }
                    let word = word.strip_prefix("r#").unwrap_or(word);
                    if previous_fn && word == name && self.line == line {
                        return Some(self.open.last().copied().unwrap_or(Block::Other));
                    }
                    previous_fn = word == "fn";
                    self.header.push(word);
                }
                _ => {}
            }
        }
        None
    }

    fn next_is(&mut self, c: char) -> bool {
        self.chars.peek().is_some_and(|&(_, next)| next == c)
    }

    /// The identifier starting at `start` (its first character taken).
    fn word(&mut self, start: usize) -> &'s str {
        let mut end = start + self.text[start..].chars().next().map_or(1, char::len_utf8);
        // `r#type`: a raw identifier.
        if &self.text[start..end] == "r" && self.next_is('#') {
            let after = &self.text[end + 1..];
            if after.starts_with(|c: char| c.is_alphabetic() || c == '_') {
                self.chars.next();
                end += 1;
            }
        }
        while let Some(&(at, c)) = self.chars.peek() {
            if c.is_alphanumeric() || c == '_' {
                self.chars.next();
                end = at + c.len_utf8();
            } else {
                break;
            }
        }
        &self.text[start..end]
    }

    fn skip_line(&mut self) {
        for (_, c) in self.chars.by_ref() {
            if c == '\n' {
                self.line += 1;
                return;
            }
        }
    }

    fn skip_block_comment(&mut self) {
        self.chars.next();
        let mut depth = 1;
        while let Some((_, c)) = self.chars.next() {
            match c {
                '\n' => self.line += 1,
                '/' if self.next_is('*') => {
                    self.chars.next();
                    depth += 1;
                }
                '*' if self.next_is('/') => {
                    self.chars.next();
                    depth -= 1;
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
    }

    fn skip_string(&mut self) {
        while let Some((_, c)) = self.chars.next() {
            match c {
                '\n' => self.line += 1,
                '\\' => {
                    if let Some((_, '\n')) = self.chars.next() {
                        self.line += 1;
                    }
                }
                '"' => return,
                _ => {}
            }
        }
    }

    fn skip_raw_string(&mut self, hashes: usize) {
        while let Some((_, c)) = self.chars.next() {
            match c {
                '\n' => self.line += 1,
                '"' => {
                    let mut closing = 0;
                    while closing < hashes && self.next_is('#') {
                        self.chars.next();
                        closing += 1;
                    }
                    if closing == hashes {
                        return;
                    }
                }
                _ => {}
            }
        }
    }

    /// `'a'`, `'\n'`, `'\''` are characters; `'a` is a lifetime.
    fn skip_char_or_lifetime(&mut self) {
        let rest: Vec<char> = self.text[self.position()..].chars().take(3).collect();
        match rest.as_slice() {
            ['\\', ..] => {
                self.chars.next();
                self.chars.next();
                for (_, c) in self.chars.by_ref() {
                    if c == '\'' {
                        return;
                    }
                }
            }
            [_, '\'', ..] => {
                self.chars.next();
                self.chars.next();
            }
            _ => {}
        }
    }

    /// `#[...]` or `#![...]`: brackets, with strings inside skipped.
    fn skip_attribute(&mut self) {
        if self.next_is('!') {
            self.chars.next();
        }
        let mut depth = 0usize;
        while let Some((_, c)) = self.chars.next() {
            match c {
                '\n' => self.line += 1,
                '"' => self.skip_string(),
                '[' => depth += 1,
                ']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
    }

    fn position(&mut self) -> usize {
        self.chars.peek().map_or(self.text.len(), |&(at, _)| at)
    }
}

/// After the word `r`, `br` or `cr`: the number of `#`s of a raw string
/// that starts here (consumed up to its opening quote), if one does.
fn raw_string_start(
    word: &str,
    chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>,
) -> Option<usize> {
    if !matches!(word, "r" | "br" | "cr") {
        return None;
    }
    let mut lookahead = chars.clone();
    let mut hashes = 0;
    while lookahead.peek().is_some_and(|&(_, c)| c == '#') {
        lookahead.next();
        hashes += 1;
    }
    if lookahead.peek().is_some_and(|&(_, c)| c == '"') {
        lookahead.next();
        *chars = lookahead;
        Some(hashes)
    } else {
        None
    }
}

/// Whether an item's header (`pub unsafe impl<T> Model<T>`) opens an
/// `impl` block: its first word, after the visibility and `unsafe`, is
/// `impl`. (A function's header mentions `impl` only after `fn`.)
fn opens_impl(header: &[&str]) -> bool {
    header
        .iter()
        .find(|word| {
            !matches!(
                **word,
                "pub" | "crate" | "super" | "self" | "in" | "unsafe" | "default"
            )
        })
        .is_some_and(|word| *word == "impl")
}

#[cfg(test)]
mod tests {
    use super::{Block, Scan};

    fn block(text: &str, line: usize, name: &str) -> Option<Block> {
        Scan::new(text).block_of(line, name)
    }

    #[test]
    fn a_function_in_an_impl_block_is_found_there() {
        let text = "struct M;\n#[allow(dead_code)]\nimpl M {\n    #[differentiable]\n    fn loss(w: f64) -> f64 { w }\n}\n";
        assert_eq!(block(text, 5, "loss"), Some(Block::Impl));
        let text =
            "pub(crate) unsafe impl<T: Clone> Tr for M<T> where T: Copy {\n    fn loss() {}\n}";
        assert_eq!(block(text, 2, "loss"), Some(Block::Impl));
    }

    #[test]
    fn free_functions_and_functions_in_bodies_are_not() {
        let text = "#[differentiable]\nfn loss(w: f64) -> f64 { w }\n";
        assert_eq!(block(text, 2, "loss"), Some(Block::Other));
        // A function taking `impl Fn` holds another function: not an impl.
        let text = "fn outer(f: impl Fn(f64) -> f64) {\n    fn loss(w: f64) -> f64 { w }\n}\n";
        assert_eq!(block(text, 2, "loss"), Some(Block::Other));
        let text = "mod m {\n    fn loss() {}\n}\n";
        assert_eq!(block(text, 2, "loss"), Some(Block::Other));
        // Another line, or another name: not found.
        assert_eq!(block(text, 3, "loss"), None);
        assert_eq!(block(text, 2, "other"), None);
    }

    #[test]
    fn unfinished_and_odd_text_is_walked_to_its_end() {
        // Every prefix of text full of openers ends the walk without a
        // panic (a slice inside a character, an unclosed string or
        // comment, a lone quote or `r#`).
        let text = "impl M { fn a() { let c = 'é'; let s = r##\"}\"# \"##; /* /* */ \"\\\" '\\u{7f}' r#type b'x' #![x] #[y = \"]\"] ' r# ' fn loss() {} } }";
        for (end, _) in text.char_indices() {
            let _ = block(&text[..end], 1, "loss");
        }
    }

    #[test]
    fn braces_in_comments_strings_characters_and_attributes_are_skipped() {
        let text = concat!(
            "// impl X {\n",
            "/* } { /* nested } */ */\n",
            "const S: &str = \"impl M { \\\" }\";\n",
            "const R: &str = r#\"}\"# ;\n",
            "const C: char = '{';\n",
            "const D: char = '\\'';\n",
            "fn lt<'a>(x: &'a str) -> &'a str { x }\n",
            "#[doc = \"}\"]\n",
            "impl M {\n",
            "    fn loss() {}\n",
            "}\n",
        );
        assert_eq!(block(text, 10, "loss"), Some(Block::Impl));
    }
}
