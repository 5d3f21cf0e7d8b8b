# -*- Python -*-
# lit configuration for Strata's FileCheck tests (test/**/*.mlir).
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "STRATA"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.strata_obj_root, "test")
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "numeric", "tosa", "Inputs"]

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(
    [ToolSubst("strata-opt", unresolved="fatal"),
     ToolSubst("strata", unresolved="fatal"),
     ToolSubst("strata-npu", unresolved="fatal")],
    [config.strata_tools_dir])

config.substitutions.append(("%strata_src", os.path.dirname(config.test_source_root)))
config.substitutions.append(
    ("%llvm_include", os.path.join(config.llvm_tools_dir, "..", "include")))
