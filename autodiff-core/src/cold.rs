//! The slow paths of recording (growing the node arrays, growing the label
//! array), out of line, behind a calling convention that keeps the
//! caller's registers.
//!
//! Why a calling convention: a call on a path that rejoins the hot path,
//! however rarely taken, makes LLVM keep every value live across it in a
//! register the callee preserves or else on the stack, and it spills them on
//! the hot path, not around the call
//! (<https://github.com/llvm/llvm-project/issues/129750>). The System V ABI
//! preserves no floating-point register and six general ones, so a
//! training loop's running sums and pointers would go to the stack and back
//! on every recorded operation. The Windows x64 convention preserves ten
//! `xmm` and eight general registers; declaring these functions with it
//! (stable Rust, any x86-64 target) moves the saving into the rarely run
//! callee. Elsewhere they are plain functions.
//!
//! The functions cannot unwind (a panic in them aborts), and none can
//! panic: `MAX_NODES` keeps every size far from overflow, and allocation
//! failure aborts in any case.

use crate::nodes::Nodes;

/// Each function twice: `extern "win64"` on x86-64, plain elsewhere.
macro_rules! cold_paths {
    ($($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)? $body:block)*) => {$(
        $(#[$doc])*
        #[cfg(target_arch = "x86_64")]
        #[cold]
        #[inline(never)]
        pub(crate) extern "win64" fn $name($($arg: $ty),*) $(-> $ret)? $body

        $(#[$doc])*
        #[cfg(not(target_arch = "x86_64"))]
        #[cold]
        #[inline(never)]
        pub(crate) fn $name($($arg: $ty),*) $(-> $ret)? $body
    )*};
}

cold_paths! {
    /// [`Nodes::make_room`]; `false` if the tape is full.
    fn make_room(nodes: &mut Nodes) -> bool {
        nodes.make_room().is_ok()
    }

    /// [`Nodes::make_room_for_label`].
    fn make_room_for_label(nodes: &mut Nodes, index: usize) {
        nodes.make_room_for_label(index);
    }
}
