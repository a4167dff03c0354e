"""Batch work that scales out: a concurrent.futures-style executor factory and deterministic chunked maps.

Basin maps, Monte Carlo and (p, q) sweeps split their points into chunks *of a fixed size that does
not depend on the executor*, run one task per chunk, and put the results back in chunk order, so the
output is bitwise identical whether the chunks ran in this process, in a local process pool or on a
Dask cluster. Randomness must be derived from the chunk (e.g. numpy.random.default_rng([seed, k])
for chunk k, see `chunk_seeds`), never from a worker's state.

How callers use it (the CLI maps `--workers N` and `--scheduler ADDRESS` onto the two keywords):

    from local2global.numeric.infra.executor import map_chunks
    labels = map_chunks(classify_chunk, starts, workers=args.workers, scheduler=args.scheduler)

`classify_chunk(chunk) -> list` must be a module-level function (it is pickled to the workers) and
returns one result per item of its chunk; `map_chunks` returns the concatenated list. For numpy
arrays use `map_array_chunks`, which splits along axis 0 and concatenates the returned arrays.

    workers=None/0  -> processes on this machine, one per CPU (ProcessPoolExecutor)
    workers=1       -> in this process, no pool (debugging, tiny batches)
    workers=N       -> N local processes
    scheduler=ADDR  -> Dask distributed (`distributed.Client(ADDR).get_executor()`); ADDR may also be an
                       existing distributed.Client or LocalCluster. Install: pip install distributed.
"""
from __future__ import annotations

import os
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

import numpy as np

#: default chunk length: fixed, so chunking (and every result) is independent of the executor
CHUNK = 256


class ProcessPool(ProcessPoolExecutor):
    """A ProcessPoolExecutor whose workers keep the interruption contract (`interrupt`): they ignore SIGINT, exit
    silently on SIGTERM and die with their parent; a spawned worker starts with both signals held. Every local
    pool of the package is one of these."""

    def __init__(self, max_workers: int | None = None, mp_context=None):
        from local2global.numeric.infra.interrupt import under_contract, worker_init
        super().__init__(max_workers, mp_context=mp_context, initializer=worker_init, initargs=(under_contract(),))

    def submit(self, fn, /, *args, **kwargs) -> Future:
        from local2global.numeric.infra.interrupt import spawn_guard
        with spawn_guard():                 # workers start inside submit: they inherit the held signals
            return super().submit(fn, *args, **kwargs)


class SerialExecutor(Executor):
    """An Executor that runs each task immediately in the calling process (workers=1)."""

    def map(self, fn, *iterables, timeout=None, chunksize=1):
        """Lazy, unlike Executor.map (which submits everything first): the caller sees each result as it
        is computed, so progress reporting works the same with and without a pool."""
        return (fn(*args) for args in zip(*iterables))

    def submit(self, fn, /, *args, **kwargs) -> Future:
        fut: Future = Future()
        try:
            fut.set_result(fn(*args, **kwargs))
        except BaseException as ex:      # noqa: BLE001 - delivered to the caller through the future, as a pool would
            fut.set_exception(ex)
        return fut


@contextmanager
def make_executor(workers: int | None = None, scheduler: Any = None,
                  start_method: str | None = None) -> Iterator[Executor]:
    """A concurrent.futures Executor: local processes by default, Dask distributed with `scheduler`.

    `start_method` ("fork", "spawn") chooses how local workers start: "fork" lets them inherit state that
    cannot be pickled (the claim registry's lambdas), "spawn" gives clean processes (Jupyter kernels).
    Closed (and a Dask client created here disconnected) when the `with` block ends.
    """
    if scheduler is not None:
        try:
            from distributed import Client
        except ImportError as ex:   # pragma: no cover - depends on the environment
            raise RuntimeError("--scheduler needs Dask distributed: pip install distributed") from ex
        own = not isinstance(scheduler, Client)
        client = Client(scheduler) if own else scheduler
        try:
            yield client.get_executor()
        finally:
            if own:
                client.close()
        return
    if workers is not None and workers < 0:
        raise ValueError("workers must be >= 0")
    if workers == 1:
        yield SerialExecutor()
        return
    import multiprocessing
    ctx = multiprocessing.get_context(start_method) if start_method else None
    with ProcessPool(max_workers=workers or os.cpu_count() or 1, mp_context=ctx) as pool:
        yield pool


def chunk_slices(n: int, chunk: int = CHUNK) -> list[slice]:
    """The fixed partition of range(n) into consecutive slices of length `chunk` (last one shorter)."""
    if chunk <= 0:
        raise ValueError("chunk must be positive")
    return [slice(i, min(i + chunk, n)) for i in range(0, n, chunk)]


def chunk_seeds(seed: int, n_chunks: int) -> list[np.random.SeedSequence]:
    """One independent SeedSequence per chunk, fixed by (seed, chunk index) only."""
    return [np.random.SeedSequence([seed, k]) for k in range(n_chunks)]


def map_chunks(fn: Callable[[Sequence], Sequence], items: Sequence, *, workers: int | None = None,
               scheduler: Any = None, chunk: int = CHUNK) -> list:
    """[*fn(items[s]) for s in chunk_slices(len(items))], one task per chunk, results in chunk order."""
    items = list(items) if not hasattr(items, "__getitem__") else items
    slices = chunk_slices(len(items), chunk)
    if not slices:
        return []
    with make_executor(workers, scheduler) as ex:
        futures = [ex.submit(fn, items[s]) for s in slices]
        out: list = []
        for s, f in zip(slices, futures):
            res = list(f.result())
            if len(res) != s.stop - s.start:
                raise ValueError(f"chunk {s} returned {len(res)} results for {s.stop - s.start} items")
            out.extend(res)
    return out


def map_array_chunks(fn: Callable[[np.ndarray], np.ndarray], array: np.ndarray, *, workers: int | None = None,
                     scheduler: Any = None, chunk: int = CHUNK) -> np.ndarray:
    """np.concatenate([fn(array[s]) for s in chunks along axis 0]), one task per chunk."""
    array = np.asarray(array)
    slices = chunk_slices(array.shape[0], chunk)
    if not slices:
        return fn(array)
    with make_executor(workers, scheduler) as ex:
        futures = [ex.submit(fn, array[s]) for s in slices]
        return np.concatenate([np.asarray(f.result()) for f in futures], axis=0)
