"""The executor gives bitwise-identical results in-process, in a local process pool and on a Dask cluster."""
from functools import partial

import numpy as np
import pytest

from local2global.numeric.evaluate import engine as E
from local2global.numeric.infra.executor import chunk_slices, map_array_chunks, map_chunks


def _batch():
    rng = np.random.default_rng(7)
    return np.column_stack([rng.uniform(-30, 30, 1500), rng.uniform(-2, 2, 1500)])


def test_chunking_is_fixed_and_covers_every_item_once():
    s = chunk_slices(1000, 256)
    assert [x.start for x in s] == [0, 256, 512, 768] and s[-1].stop == 1000
    assert chunk_slices(0) == []


def test_process_pool_matches_serial_bitwise():
    ew = _batch()
    task = partial(E.loss_grad_table, 0.3, 0.6)
    direct = task(ew)
    serial = map_array_chunks(task, ew, workers=1, chunk=200)
    pool = map_array_chunks(task, ew, workers=2, chunk=200)
    assert serial.tobytes() == direct.tobytes()
    assert pool.tobytes() == direct.tobytes()
    # list flavour: one result per item, in order
    rows = map_chunks(partial(E.loss_grad_table, 0.3, 0.6), list(map(tuple, ew[:300])), workers=2, chunk=64)
    assert np.asarray(rows).tobytes() == direct[:300].tobytes()


@pytest.mark.slow
def test_dask_local_cluster_matches_process_pool_bitwise():
    distributed = pytest.importorskip("distributed")
    ew = _batch()
    task = partial(E.loss_grad_table, 0.9, 0.2)
    pool = map_array_chunks(task, ew, workers=2, chunk=200)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cl:
        via_address = map_array_chunks(task, ew, scheduler=cl.scheduler_address, chunk=200)
    assert via_address.tobytes() == pool.tobytes()


def test_a_chunk_returning_the_wrong_number_of_results_is_an_error():
    with pytest.raises(ValueError):
        map_chunks(_drop_one, list(range(10)), workers=1, chunk=4)


def _drop_one(chunk):
    return list(chunk)[:-1]
