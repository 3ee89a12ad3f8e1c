"""`faultline verify`: every signature's message text checked against the released packages.

For a signature whose entry names a Python package and a version range, the released wheels (or
sdists) of that package are fetched from the package index at the range's boundaries, just outside
them and at a few releases inside, and searched for the literal parts of the signature's pattern.
The boundaries are then narrowed by bisection to the first and last release that contains the
text.  Messages of a C library (NCCL) are searched in its source at the release tags.

- ``choose``: which releases to fetch for a claim, and bisection between an absent and a present one
- ``search``: the literal parts of a pattern, searched in a wheel/sdist or a source tree
- ``sources``: the package index (``pip index versions`` / ``pip download``) and git tags, cached
- ``run``: one signature, or the whole KB, verified

The claims and the records they produce are data of the KB and live in app/verification/.
"""
