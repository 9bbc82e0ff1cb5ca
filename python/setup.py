# a shim for `pip install -e python` with setuptools older than PEP 660 editable installs
from setuptools import setup

setup()
