#!/usr/bin/python3
"""tests/reference/leace_fixtures.py - LEACE fixtures from the concept-erasure package.

Writes small cases into OUT (tests/data/leace by default), each a folder with
  X.npy        float32 (n, d)   the vectors
  z.npy        int32   (n,)     each row's class, 0..k-1 (one-hot Z = np.eye(k)[z])
  meta.npy     int32   (4,)     [k, shrinkage (0/1), rank the package removed, cov rank]
  leace.npy    float64 (n, d)   concept_erasure.LeaceEraser.fit(X, Z, shrinkage=S)(X), in float64
  numpy.npy    float64 (n, d)   the same closed form re-derived here in NumPy (second check)
The C unit test tests/unit/probes_leace.c runs prb_leace_fit + prb_eraser_apply on X, z and
compares with both to 1e-4.

The NumPy re-derivation follows Belrose et al. 2023 (arXiv 2306.03819), Theorem 3.1:
  x' = x - W^+ P_{W Sxz} W (x - mu),  W = Sxx^{-1/2} (pseudo-inverse square root),
with the package's numerical choices written out: Bessel's correction on both covariances,
eigenvalues at or below lambda_max * d * eps treated as 0 (torch.linalg.pinv's rule), singular
vectors of W Sxz with singular value <= 0.01 (svd_tol) dropped, and with shrinkage the
Ledoit-Wolf-type linear shrinkage of arXiv 1308.2608 towards tr(S)/d I applied to S = scatter/n.

tests/cli/t3295-erase.sh imports numpy_leace (NumPy only) to check the stored erased run.

Usage: make leace-fixtures CE_PYTHON=VENV/bin/python
  (VENV: /usr/bin/python3 -m venv --system-site-packages VENV; VENV/bin/pip install concept-erasure==0.2.4)
"""
import os
import sys

import numpy as np


def numpy_leace(X, z, k, shrinkage):
    X = X.astype(np.float64)
    n, d = X.shape
    Z = np.eye(k)[z]
    mu = X.mean(axis=0)
    Xc = X - mu
    Zc = Z - Z.mean(axis=0)
    scatter = Xc.T @ Xc
    if shrinkage:
        S = scatter / n
        tr = np.trace(S)
        target = tr / d
        # alpha = 1 - (tr^2 * ||T||^2 / n) / (||S||^2 ||T||^2 - <S,T>^2), T = target * I
        t_norm2 = target * target * d
        st = tr * target
        alpha = 1.0 - (tr * tr * t_norm2 / n + np.finfo(float).eps) / (
            np.sum(S * S) * t_norm2 - st * st + np.finfo(float).eps)
        Sxx = alpha * S + (1.0 - alpha) * target * np.eye(d)
    else:
        Sxx = scatter / (n - 1)
    Sxz = Xc.T @ Zc / (n - 1)
    lam, V = np.linalg.eigh(Sxx)
    keep = lam > lam[-1] * d * np.finfo(float).eps
    lam = np.clip(lam, 0.0, None)
    isq = np.where(keep, 1.0 / np.sqrt(np.where(keep, lam, 1.0)), 0.0)
    sq = np.where(keep, np.sqrt(lam), 0.0)
    W = (V * isq) @ V.T
    Wp = (V * sq) @ V.T
    U, s, _ = np.linalg.svd(W @ Sxz, full_matrices=False)
    U = U[:, s > 0.01]
    P = U @ U.T
    return X - (Xc @ W.T @ P.T @ Wp.T), U.shape[1], int(keep.sum())


def case(out, name, X, z, k, shrinkage):
    import torch                                  # only here: the CLI test imports numpy_leace alone
    from concept_erasure import LeaceEraser
    path = os.path.join(out, name)
    os.makedirs(path, exist_ok=True)
    X = X.astype(np.float32)
    z = z.astype(np.int32)
    xt = torch.from_numpy(X.astype(np.float64))
    zt = torch.nn.functional.one_hot(torch.from_numpy(z.astype(np.int64)), k).to(torch.float64)
    eraser = LeaceEraser.fit(xt, zt, shrinkage=bool(shrinkage))
    got = eraser(xt).numpy()
    rank = int(torch.linalg.matrix_rank(eraser.proj_left @ eraser.proj_right).item())
    ref, nrank, cov_rank = numpy_leace(X, z, k, shrinkage)
    err = np.abs(got - ref).max()
    assert err < 1e-8 and nrank == rank, (name, err, nrank, rank)
    np.save(os.path.join(path, "X.npy"), X)
    np.save(os.path.join(path, "z.npy"), z)
    np.save(os.path.join(path, "meta.npy"), np.array([k, shrinkage, rank, cov_rank], dtype=np.int32))
    np.save(os.path.join(path, "leace.npy"), got)
    np.save(os.path.join(path, "numpy.npy"), ref)
    print(f"{name}: n {X.shape[0]} d {X.shape[1]} k {k} shrinkage {shrinkage}: rank {rank}, cov rank {cov_rank}, "
          f"package vs numpy {err:.2e}")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/data/leace"
    rng = np.random.default_rng(20261207)
    # 1: four classes with shifted means, correlated features, full-rank covariance
    n, d, k = 240, 12, 4
    z = rng.integers(0, k, n)
    A = rng.normal(size=(d, d))
    X = rng.normal(size=(n, d)) @ A + rng.normal(size=(k, d))[z] * 2.0 + 3.0
    case(out, "full", X, z, k, 0)
    # 2: fewer rows than dimensions: a rank-deficient covariance (the pinv cut acts)
    n, d, k = 15, 20, 3
    z = np.arange(n) % k
    X = rng.normal(size=(n, d)) + rng.normal(size=(k, d))[z]
    case(out, "rankdef", X, z, k, 0)
    # 3: shrinkage on
    n, d, k = 60, 10, 5
    z = rng.integers(0, k, n)
    X = rng.normal(size=(n, d)) * np.linspace(0.5, 3.0, d) + rng.normal(size=(k, d))[z]
    case(out, "shrink", X, z, k, 1)
    # 4: a class absent (its column of Sxz is 0) and two rare classes, one near another's mean
    n, d, k = 400, 8, 5
    z = rng.choice([0, 1, 3, 4], size=n, p=[0.49, 0.49, 0.01, 0.01])
    means = rng.normal(size=(k, d)) * 3.0
    means[4] = means[0] + 1e-4
    X = rng.normal(size=(n, d)) * 5.0 + means[z]
    case(out, "weak", X, z, k, 0)


if __name__ == "__main__":
    main()
