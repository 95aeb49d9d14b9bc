# SPDX-License-Identifier: GPL-2.0-only
"""bpftune-telemetry: the tool's modules, one per subcommand (cli.py has the command line).

As a library: bpftune_telemetry.load(DIR) reads a dataset that `dataset
build` wrote as pandas frames with their declared dtypes, units, gaps and
provenance (loader.py, docs/datasets.md).
"""

from .loader import Dataset, load  # noqa: F401
