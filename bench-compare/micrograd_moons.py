"""micrograd's own two-moons demo, timed, on our data and initial weights.

Trains exactly as micrograd's demo.ipynb does (hinge loss, L2 with alpha
1e-4, 100 steps of SGD with learning rate 1.0 - 0.9*k/100), but starts
from the points and weights that `examples/moons.rs` exports, so both
train the same network from the same start. Prints the loss and accuracy
every 10 steps (to compare with the Rust example's lines) and the time.

    pip install micrograd
    cargo run --release --example moons -- --export /tmp/moons.json
    python3 bench-compare/micrograd_moons.py /tmp/moons.json
"""

import json
import sys
import time

from micrograd.engine import Value
from micrograd.nn import MLP


def main(path):
    with open(path) as f:
        start = json.load(f)
    X = [p[:2] for p in start["points"]]
    y = [p[2] for p in start["points"]]
    model = MLP(2, [16, 16, 1])
    for layer, saved in zip(model.layers, start["layers"]):
        for neuron, w, b in zip(layer.neurons, saved["w"], saved["b"]):
            for value, number in zip(neuron.w, w):
                value.data = number
            neuron.b.data = b

    def loss():
        inputs = [list(map(Value, xrow)) for xrow in X]
        scores = list(map(model, inputs))
        losses = [(1 + -yi * scorei).relu() for yi, scorei in zip(y, scores)]
        data_loss = sum(losses) * (1.0 / len(losses))
        alpha = 1e-4
        reg_loss = alpha * sum((p * p for p in model.parameters()))
        total_loss = data_loss + reg_loss
        accuracy = [(yi > 0) == (scorei.data > 0) for yi, scorei in zip(y, scores)]
        return total_loss, sum(accuracy) / len(accuracy)

    began = time.perf_counter()
    for k in range(100):
        total_loss, acc = loss()
        model.zero_grad()
        total_loss.backward()
        learning_rate = 1.0 - 0.9 * k / 100
        for p in model.parameters():
            p.data -= learning_rate * p.grad
        if k % 10 == 0 or k == 99:
            print(f"step {k:3}  loss {total_loss.data:.4f}  accuracy {100 * acc:3.0f}%")
    elapsed = time.perf_counter() - began
    final, acc = loss()
    print(
        f"after 100 steps: loss {final.data:.4f}, accuracy {100 * acc:.0f}%; "
        f"{elapsed:.2f} s in all, {1e3 * elapsed / 100:.2f} ms per step"
    )


if __name__ == "__main__":
    main(sys.argv[1])
