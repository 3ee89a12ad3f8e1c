"""Real example logs for jax/resource-exhausted-oom, produced by JAX on CPU.

An array or a jitted step that needs more memory than the host has makes XLA's CPU client fail the
allocation with RESOURCE_EXHAUSTED; on a GPU the same failure reads "Out of memory while trying to
allocate N bytes" (that form is composed in the entry's examples, there being no GPU here).

Needs jax (``pip install "jax[cpu]"``) in the interpreter that runs generate.py; without it the runs
fail and the saved logs are kept.
"""
from __future__ import annotations

from generate import run_script

EAGER = r'''
import jax, jax.numpy as jnp
print("jax", jax.__version__, "devices", jax.devices(), flush=True)
# a (2**20, 2**20) float32 array: 4 TiB
feats = jnp.ones((1 << 20, 1 << 20), dtype=jnp.float32)
print(feats.shape)
'''

JIT_STEP = r'''
import jax, jax.numpy as jnp

print("jax", jax.__version__, "devices", jax.devices(), flush=True)
key = jax.random.PRNGKey(0)
w = jax.random.normal(key, (512, 512)) * 0.02

def loss_fn(w, x):
    return jnp.mean((x @ w) ** 2)

@jax.jit
def train_step(w, x):
    loss, g = jax.value_and_grad(loss_fn)(w, x)
    return w - 1e-3 * g, loss

x = jnp.ones((64, 512))
for step in range(3):
    w, loss = train_step(w, x)
    print(f"step {step} loss {float(loss):.5f}", flush=True)

@jax.jit
def pairwise(x):
    # all pairwise squared differences of 2**20 scores: a (2**20, 2**20) float32 output, 4 TiB
    return (x[:, None] - x[None, :]) ** 2

scores = jnp.ones((1 << 20,))
d = pairwise(scores).block_until_ready()
print(d.shape)
'''


def generate() -> None:
    e = "jax/resource-exhausted-oom"
    run_script(e, "cpu-array-too-large", EAGER)
    run_script(e, "cpu-jit-intermediate", JIT_STEP)
