//! SplitMix64: the seeded generator behind the lesson examples' random
//! draws and the benches' inputs, so both are reproducible without a
//! dependency. Shared through `#[path]` by `examples/support/lesson15.rs`
//! and `benches/common/mod.rs`.

/// The generator's state.
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}
