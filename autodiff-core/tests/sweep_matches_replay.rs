//! The pass `backward` runs (`sweep.rs`) and the textbook loop the ledger
//! replays (`replay.rs`) must compute the same adjoints, bit for bit: the
//! ledger shows the pass that ran only if they do. Random graphs mix
//! leading and later variables, constants, detached values, repeated
//! operands and plain operands; the sweep's adjoints are read back as
//! stored gradients, the replay's from the ledger.

use autodiff_core::{Scalar, Tape};

/// A small xorshift generator: the graphs need variety, not quality.
struct Draws(u64);

impl Draws {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A value in [-1.5, 1.5).
    fn value(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 * 3.0 - 1.5
    }
}

/// Records a random graph of `size` nodes after `leaves` leading variables.
fn record<'t>(tape: &'t Tape, draws: &mut Draws, leaves: usize, size: usize) -> Vec<Scalar<'t>> {
    let values: Vec<f64> = (0..leaves).map(|_| draws.value()).collect();
    let mut nodes = tape.variables(&values).unwrap();
    while nodes.len() < leaves + size {
        let a = nodes[draws.below(nodes.len())];
        let b = nodes[draws.below(nodes.len())];
        let c = draws.value();
        let node = match draws.below(10) {
            0 => a.add(b),
            1 => a.mul(b),
            2 => a.sub(a),
            3 => a.mul(c),
            4 => a.tanh(),
            5 => a.sin(),
            6 => tape.constant(c),
            7 => a.detach(),
            8 => tape.variable(c),
            _ => a.mul(a),
        };
        nodes.push(node.unwrap());
    }
    nodes
}

#[test]
fn sweep_and_replay_agree_bit_for_bit_on_random_graphs() {
    let mut draws = Draws(0x9e37_79b9_7f4a_7c15);
    let mut compared = 0;
    for graph in 0..300 {
        let tape = Tape::new();
        let leaves = 1 + draws.below(6);
        let size = 1 + draws.below(60);
        let nodes = record(&tape, &mut draws, leaves, size);
        let Some(&output) = nodes.iter().rev().find(|n| n.tracks_gradient()) else {
            continue;
        };
        let seed = draws.value() + 2.0;

        // First pass: the stored gradients are `0 + sweep adjoint`.
        let pass = output.backward_with_seed(seed).unwrap();
        let first: Vec<Option<f64>> = nodes.iter().map(|n| n.gradient()).collect();
        for (node, stored) in nodes.iter().zip(&first) {
            let replayed = pass.pass_adjoint(node.index());
            match (stored, replayed) {
                (Some(stored), Some(replayed)) => {
                    assert_eq!(
                        stored.to_bits(),
                        (0.0 + replayed).to_bits(),
                        "graph {graph}"
                    );
                    compared += 1;
                }
                // Not reached, or past the output: nothing was added.
                (Some(stored), None) => assert_eq!(stored.to_bits(), 0, "graph {graph}"),
                (None, replayed) => assert_eq!(replayed, None, "graph {graph}"),
            }
        }
        drop(pass);

        // Second pass: the sweep's loop over nodes with stored gradients.
        let pass = output.backward_with_seed(seed).unwrap();
        for (node, before) in nodes.iter().zip(&first) {
            if let (Some(before), Some(replayed)) = (before, pass.pass_adjoint(node.index())) {
                let after = node.gradient().unwrap();
                assert_eq!(
                    after.to_bits(),
                    (before + replayed).to_bits(),
                    "graph {graph}"
                );
            }
        }
    }
    assert!(compared > 800, "only {compared} adjoints compared");
}
