"""`camlint audit`: the reporting audit of many papers (a venue, a field) on one machine or a Dask cluster.

    papers.py    which papers: folders, files or a CSV manifest -> Paper (one primary document each)
    record.py    one paper -> one JSON record, through `camlint check`'s own entry point and cache
    resultcache.py  a paper's record fields kept under the hash of its folder: a warm paper skips the check
    store.py     the JSONL store: records appended as they finish, read back for --resume
    pool.py      local worker processes (chunks, hard per-paper timeout, crash recovery)
    dask_run.py  the same over dask.distributed (`--scheduler`, extra camlint[audit])
    execute.py   runs the missing papers on either back end, streaming records to the store
    progress.py  the terminal progress line
    summary.py   the audit's figures, tallied in one pass over the store
    truth.py     agreement with a hand-labelled sample (--truth labels.yaml)
    reports.py   Markdown and CSV; html.py + plots.py: the self-contained HTML page
    command.py   the command itself (called from camlint.cli.main)
"""
