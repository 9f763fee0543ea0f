# -*- Python -*-
# The tad unit tests: every GoogleTest case in build/unittests/*Tests is one
# lit test, so that one lit run counts both suites.

import os

import lit.formats

config.name = "tad-unit"
config.suffixes = []
config.test_source_root = os.path.join(config.tad_obj_root, "unittests")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
