# SPDX-License-Identifier: GPL-2.0-only
"""The tool's version and commit: make install-telemetry writes them here;
in a source tree they are read from the Makefile and git (provenance.py)."""

VERSION = "@VERSION@"
COMMIT = "@COMMIT@"
