//! The cell that holds a tape's nodes: `RefCell`'s rules as a contract on
//! the caller, checked in debug builds.
//!
//! Recording a node is a handful of stores, and `RefCell`'s flag (a load, a
//! test and two stores around each borrow) is a measurable part of it
//! (measured against `RefCell` itself on the MLP benches; the figures are in
//! the commit that made these accessors `unsafe`). So
//! the accessors are `unsafe fn`s whose `# Safety` section states the rule
//! `RefCell` would check, and each call site says with a `// SAFETY:`
//! comment why it keeps it: every borrow of a tape lives inside one method
//! of this crate that runs none of its caller's code while it holds the
//! guard and calls no other method that borrows. Debug builds, where every
//! test runs, keep the flag and panic on a broken rule exactly as `RefCell`
//! would.
//!
//! The cell is `!Sync` (it holds an `UnsafeCell`), so a tape can move to
//! another thread but never be shared by two.

use std::cell::UnsafeCell;
use std::ops::{Deref, DerefMut};

#[cfg(debug_assertions)]
use std::cell::Cell;

/// A value behind `&self` that this crate borrows in scoped, non-nested
/// steps. See the module documentation.
pub(crate) struct NodeCell<T> {
    value: UnsafeCell<T>,
    /// Debug builds only: the number of shared borrows, or −1 while the
    /// value is borrowed exclusively.
    #[cfg(debug_assertions)]
    state: Cell<isize>,
}

impl<T: Default> Default for NodeCell<T> {
    fn default() -> Self {
        Self::new(T::default())
    }
}

impl<T> NodeCell<T> {
    pub(crate) fn new(value: T) -> Self {
        Self {
            value: UnsafeCell::new(value),
            #[cfg(debug_assertions)]
            state: Cell::new(0),
        }
    }

    /// Shared access for as long as the guard lives.
    ///
    /// # Safety
    ///
    /// No [`Exclusive`] guard of this cell may be alive when this is called
    /// or while the returned guard lives: the caller runs no code that
    /// could call [`borrow_mut`](Self::borrow_mut) on this cell (no user
    /// code, no callback) before dropping the guard. Debug builds panic
    /// where this is broken.
    #[inline(always)]
    pub(crate) unsafe fn borrow(&self) -> Shared<'_, T> {
        #[cfg(debug_assertions)]
        {
            let state = self.state.get();
            assert!(state >= 0, "autodiff bug: tape read while being written");
            self.state.set(state + 1);
        }
        Shared {
            // SAFETY: no exclusive guard is alive (the caller's contract,
            // checked above in debug builds), so shared references may
            // coexist.
            value: unsafe { &*self.value.get() },
            #[cfg(debug_assertions)]
            state: &self.state,
        }
    }

    /// Exclusive access for as long as the guard lives.
    ///
    /// # Safety
    ///
    /// No other guard of this cell, shared or exclusive, may be alive when
    /// this is called or while the returned guard lives: the caller runs no
    /// code that could borrow this cell (no user code, no callback) before
    /// dropping the guard. Debug builds panic where this is broken.
    #[inline(always)]
    pub(crate) unsafe fn borrow_mut(&self) -> Exclusive<'_, T> {
        #[cfg(debug_assertions)]
        {
            assert!(
                self.state.get() == 0,
                "autodiff bug: tape written while borrowed"
            );
            self.state.set(-1);
        }
        Exclusive {
            // SAFETY: no other guard is alive (the caller's contract,
            // checked above in debug builds), so this is the only reference.
            value: unsafe { &mut *self.value.get() },
            #[cfg(debug_assertions)]
            state: &self.state,
        }
    }

    /// Exclusive access through `&mut self`: no guard needed.
    pub(crate) fn get_mut(&mut self) -> &mut T {
        self.value.get_mut()
    }
}

/// A shared borrow of a [`NodeCell`].
pub(crate) struct Shared<'a, T> {
    value: &'a T,
    #[cfg(debug_assertions)]
    state: &'a Cell<isize>,
}

impl<T> Deref for Shared<'_, T> {
    type Target = T;
    #[inline(always)]
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T> Drop for Shared<'_, T> {
    #[inline(always)]
    fn drop(&mut self) {
        #[cfg(debug_assertions)]
        self.state.set(self.state.get() - 1);
    }
}

/// An exclusive borrow of a [`NodeCell`].
pub(crate) struct Exclusive<'a, T> {
    value: &'a mut T,
    #[cfg(debug_assertions)]
    state: &'a Cell<isize>,
}

impl<T> Deref for Exclusive<'_, T> {
    type Target = T;
    #[inline(always)]
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T> DerefMut for Exclusive<'_, T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut T {
        self.value
    }
}

impl<T> Drop for Exclusive<'_, T> {
    #[inline(always)]
    fn drop(&mut self) {
        #[cfg(debug_assertions)]
        self.state.set(0);
    }
}

#[cfg(all(test, debug_assertions))]
mod tests {
    use super::NodeCell;

    // The tests break the contract on purpose: in a debug build the flag
    // turns each breach into a panic before any reference is made.

    #[test]
    fn shared_borrows_coexist() {
        let cell = NodeCell::new(5);
        // SAFETY: no exclusive guard is alive while the shared ones are.
        let (a, b) = unsafe { (cell.borrow(), cell.borrow()) };
        assert_eq!(*a + *b, 10);
        drop((a, b));
        // SAFETY: each guard is dropped at the end of its statement.
        unsafe {
            *cell.borrow_mut() += 1;
            assert_eq!(*cell.borrow(), 6);
        }
    }

    #[test]
    #[should_panic(expected = "tape written while borrowed")]
    fn a_write_during_a_read_panics_in_debug_builds() {
        let cell = NodeCell::new(5);
        // SAFETY: none: the debug flag panics before a second reference exists.
        let _read = unsafe { cell.borrow() };
        // SAFETY: as above.
        let _write = unsafe { cell.borrow_mut() };
    }

    #[test]
    #[should_panic(expected = "tape read while being written")]
    fn a_read_during_a_write_panics_in_debug_builds() {
        let cell = NodeCell::new(5);
        // SAFETY: none: the debug flag panics before a second reference exists.
        let _write = unsafe { cell.borrow_mut() };
        // SAFETY: as above.
        let _read = unsafe { cell.borrow() };
    }
}
