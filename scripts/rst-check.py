#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""rst-check.py FILE: print docutils' warnings and errors for a
reStructuredText file (nothing when it parses cleanly); make lint."""
import io
import sys

import docutils.core

err = io.StringIO()
with open(sys.argv[1], encoding='utf-8') as f:
    docutils.core.publish_doctree(
        f.read(), source_path=sys.argv[1],
        settings_overrides={'report_level': 2, 'warning_stream': err,
                            'halt_level': 5})
sys.stdout.write(err.getvalue())
