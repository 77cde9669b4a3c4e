# mk/pip.mk — the Python package installed with pip (pyproject.toml, setup.py).
#
#   make pip-test     in a fresh venv: pip install . (offline), import gnndb
#                     and train on cora from outside the checkout, pip wheel .
#
# Part of `make test`. It needs python3-venv and the wheels of
# python3-setuptools-whl and python3-wheel-whl (scripts/deps.sh), and no
# network: pip runs with --no-index.

.PHONY: pip-test

pip-test: all
	@sh tests/run_pip.sh $(PYTHON)
