# SPDX-License-Identifier: GPL-2.0-only
"""bpftune-telemetry: the tool's modules, one per subcommand (cli.py has the command line)."""
