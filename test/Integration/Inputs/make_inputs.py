"""Writes x.npy, w.npy and b.npy with the values of call_model.c."""
import sys

import numpy as np


def values(n, salt):
    i = np.arange(n)
    return (((i * 7 + salt) % 13) - 6).astype(np.float32) / np.float32(8)


out = sys.argv[1]
np.save(f"{out}/x.npy", values(8 * 16, 1).reshape(8, 16))
np.save(f"{out}/w.npy", values(16 * 4, 2).reshape(16, 4))
np.save(f"{out}/b.npy", values(4, 3))
