"""The strategy lab: many requests × strategies × modes × providers × optimisers, reproducibly
(docs/ARCHITECTURE.md, "Strategy lab"). No Streamlit here; the page and the CLI call this API.

Nothing is imported here (``python -m core`` stays fast); import from the modules:

``core.models.lab``
    ``RouteBatchItem`` / ``TripBatchItem`` (a batch line, ``BATCH_ITEM`` validates either), ``LabGrid`` (what to run
    over), ``ResultRow`` (one row of the results table, every column documented), ``TIMING_COLUMNS``,
    ``schemas()`` (the JSON schemas shipped in ``core/lab/schema/``).
``core.lab.generate``
    ``generate_batch(region=, kind=, n=, stops=(lo, hi), seed=)`` -> items drawn from the pack;
    ``write_batch(items, path)``, ``batch_lines(items)`` (byte-identical for the same seed).
``core.lab.batch``
    ``read_batch(path)`` -> ``Batch`` (valid items and ``InvalidLine`` s, which become error rows);
    ``read_grid(path | None)`` -> ``LabGrid``.
``core.lab.runner``
    ``run_batch(batch, grid, out, *, workers=, resume=, settings=, scheduler=, chunk_size=, bar=, progress=)``
    -> ``RunReport``; ``progress(done, total)`` is called after every chunk (a page's progress box). With
    ``OMNI_DASK_SCHEDULER`` (or ``scheduler=``) the chunks run on that Dask cluster.
``core.lab.task``
    ``run_task(item, index=, cell=, grid=, settings=, providers=)`` -> rows: one request on one provider × mode (pure).
``core.lab.results``
    ``load_results(path)`` -> DataFrame (Parquet or CSV), ``grid_of(path)``, ``comparable(frame)`` (without timing
    columns), ``COLUMNS`` / ``SCHEMA`` (pyarrow, with each column's description).
``core.lab.summary``
    ``summarize(frame, a=, b=, optimiser=, seed=)`` -> ``LabSummary`` (pairs of strategies, optimiser gaps by
    size, flags such as ``STRATEGIES_CANNOT_DIFFER``); ``summary_frames(summary)`` -> flat tables for CSV/charts.
``core.lab.solvers``
    the optimisers on one matrix: ``run_ortools``, ``run_valhalla``, ``run_nearest_neighbour``, ``order_cost``.
"""
