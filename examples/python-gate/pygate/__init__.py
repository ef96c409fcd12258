"""python-gate: a small pass/fail gate trained with numpy, laid out as a seed-era stack.

Every step is a module run as `python -m pygate.<step>` with the seed's flags
(docs/contract.md); see examples/python-gate/README.md.
"""
