//! xorshift64*: a small seeded generator, the same on every machine, for
//! the tests that write random programs. Shared through `#[path]` by
//! `tests/random_functions.rs` and `autodiff-macros/tests/never_panics.rs`.

/// The generator's state; seed it with an odd number (never 0).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Uniform in `[-scale, scale)`, from the top 53 bits.
    #[allow(dead_code)]
    pub fn uniform(&mut self, scale: f64) -> f64 {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * scale
    }

    /// True with the given chance in percent.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}
