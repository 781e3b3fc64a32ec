//! The README's excerpt of generated code is the checked-in expansion
//! snapshot, which `cargo test -p autodiff-macros` keeps equal to what the
//! macro emits today: so the README cannot show code the macro no longer writes.

use std::path::Path;

#[test]
fn the_cargo_expand_excerpt_is_the_reused_square_snapshot() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let snapshot =
        std::fs::read_to_string(root.join("autodiff-macros/snapshots/reused_square.expanded.rs"))
            .expect("reused_square snapshot");
    let intro = readme
        .find("`cargo expand` shows that recording twin as a tape")
        .expect("the README introduces the excerpt");
    let start = intro + readme[intro..].find("```text\n").expect("a text block") + 8;
    let end = start + readme[start..].find("```").expect("the block ends");
    let excerpt = &readme[start..end];
    assert!(excerpt.starts_with("fn loss_tape<'tape>("), "{excerpt}");
    assert!(
        snapshot.contains(excerpt),
        "README excerpt differs from the snapshot:\n{excerpt}"
    );
}
