#!/usr/bin/env python3
"""Fail unless every symbol the shared library defines and exports starts with pfm_."""
import subprocess
import sys

nm, lib = sys.argv[1], sys.argv[2]
out = subprocess.run([nm, '-D', '--defined-only', lib], check=True, capture_output=True, text=True).stdout
bad, good = [], 0
for line in out.splitlines():
    parts = line.split()
    if len(parts) < 3 or parts[1] not in 'TDBR':
        continue
    if parts[2].startswith('pfm_'):
        good += 1
    else:
        bad.append(parts[2])
if bad or good < 60:
    sys.stderr.write(f'{lib}: unexpected exports {bad} ({good} pfm_* symbols)\n')
    sys.exit(1)
print(f'{good} pfm_* symbols, nothing else')
