#!/usr/bin/env bash
# vscode.sh: what `make vscode` runs. Writes .vscode/ for the whole
# repository, once (there is no per-sample copy): every task acts on the
# sample of the active editor, found at run time by tools/vscode_task.sh, so
# a sample added later needs nothing new here.
#   tasks.json       build (the default build task), build debug (dbg=1), run,
#                    memcheck (--print-limit 20), verify (four sanitizer tools),
#                    profile (one variant); the two that prepare a cuda-gdb
#                    launch (debug, debug-fixed); plus make, make test, make run
#   launch.json      cuda-gdb (NVIDIA Nsight Visual Studio Code Edition) on the
#                    active editor's program, resolved and built for debugging
#                    first (tools/vscode_task.sh debug): a sample's bin/<name>
#                    (dbg=1), a debugging case's bin/dbg/<case>_buggy, a unit
#                    test's program (build/tests/...); a case's fixed form
#                    (bin/dbg/<case>_fixed); or a program by name
#   settings.json    clangd reads compile_commands.json (make compile_commands.json)
#   extensions.json  the two extensions these files use
# .vscode/ names local paths (the toolkit's cuda-gdb) and is yours to edit, so
# it is git-ignored; a file that differs from what would be written is kept
# as <file>.orig before it is replaced.
set -eu
cd "$(dirname "$0")/.."
nvcc_path=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
cuda_bin=$(dirname "$nvcc_path")
clangd=$(command -v clangd-19 || command -v clangd-18 || command -v clangd-17 || command -v clangd || echo clangd)
mkdir -p .vscode
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# task LABEL ACTION EXTRA-ARGS-JSON GROUP: one task of tools/vscode_task.sh
task() {
    cat <<JSON
    {
      "label": "$1",
      "type": "shell",
      "command": "\${workspaceFolder}/tools/vscode_task.sh",
      "args": ["$2", "\${file}"$3],
      "options": { "cwd": "\${workspaceFolder}" },
      "group": $4,
      "problemMatcher": [
        { "base": "\$gcc", "fileLocation": ["autoDetect", "\${fileDirname}"] },
        {
          "owner": "nvcc",
          "fileLocation": ["autoDetect", "\${fileDirname}"],
          "pattern": { "regexp": "^(.*)\\\\((\\\\d+)\\\\): (error|warning)[^:]*: (.*)\$", "file": 1, "line": 2, "severity": 3, "message": 4 }
        }
      ]
    },
JSON
}

{
    echo '// Written by make vscode (tools/vscode.sh): the sample tasks act on the active editor'"'"'s sample.'
    echo '{'
    echo '  "version": "2.0.0",'
    echo '  "tasks": ['
    task "sample: build" build "" '{ "kind": "build", "isDefault": true }'
    task "sample: build debug (dbg=1)" build-debug "" '"build"'
    task "sample: run" run ', "${input:sampleArgs}"' '"none"'
    task "sample: memcheck (--print-limit 20)" memcheck ', "${input:sampleArgs}"' '"test"'
    task "sample: verify (memcheck, racecheck, initcheck, synccheck)" verify "" '"test"'
    task "sample: profile one variant" profile ', "${input:variant}", "${input:note}"' '"none"'
    task "debug: build and pick the active file's program" debug "" '"none"'
    task "debug: build and pick the active case's fixed form" debug-fixed "" '"none"'
    cat <<'JSON'
    { "label": "suite: make", "type": "shell", "command": "make", "group": "build", "problemMatcher": ["$gcc"] },
    { "label": "suite: make test", "type": "shell", "command": "make test", "group": { "kind": "test", "isDefault": true }, "problemMatcher": [] },
    { "label": "suite: make run", "type": "shell", "command": "make run", "group": "none", "problemMatcher": [] }
  ],
  "inputs": [
    { "id": "sampleArgs", "type": "promptString", "description": "arguments for the sample", "default": "--quick" },
    { "id": "variant", "type": "promptString", "description": "the variant to profile (the sample's --help lists them)" },
    { "id": "note", "type": "promptString", "description": "what you changed, for the notebook", "default": "" }
  ]
}
JSON
} >"$tmp/tasks.json"

cat >"$tmp/launch.json" <<JSON
// Written by make vscode (tools/vscode.sh); cuda-gdb needs the NVIDIA Nsight Visual Studio Code Edition extension.
{
  "version": "0.2.0",
  "configurations": [
    {
      "name": "cuda-gdb: the active file's program (a sample, a debugging case's buggy form, a unit test; --quick)",
      "type": "cuda-gdb",
      "request": "launch",
      "program": "\${workspaceFolder}/build/vscode/debug_program",
      "args": "--quick",
      "cwd": "\${workspaceFolder}",
      "debuggerPath": "$cuda_bin/cuda-gdb",
      "onAPIError": "stop",
      "preLaunchTask": "debug: build and pick the active file's program"
    },
    {
      "name": "cuda-gdb: the active debugging case's fixed form (--quick)",
      "type": "cuda-gdb",
      "request": "launch",
      "program": "\${workspaceFolder}/build/vscode/debug_program",
      "args": "--quick",
      "cwd": "\${workspaceFolder}",
      "debuggerPath": "$cuda_bin/cuda-gdb",
      "onAPIError": "stop",
      "preLaunchTask": "debug: build and pick the active case's fixed form"
    },
    {
      "name": "cuda-gdb: a program by name (bin/NAME)",
      "type": "cuda-gdb",
      "request": "launch",
      "program": "\${workspaceFolder}/bin/\${input:program}",
      "args": "\${input:programArgs}",
      "cwd": "\${workspaceFolder}",
      "debuggerPath": "$cuda_bin/cuda-gdb",
      "onAPIError": "stop"
    }
  ],
  "inputs": [
    { "id": "program", "type": "promptString", "description": "program under bin/ (build it with dbg=1 first)" },
    { "id": "programArgs", "type": "promptString", "description": "its arguments", "default": "--quick" }
  ]
}
JSON

cat >"$tmp/settings.json" <<JSON
// Written by make vscode (tools/vscode.sh).
{
  "files.associations": { "*.cu": "cuda-cpp", "*.cuh": "cuda-cpp" },
  "clangd.path": "$clangd",
  "clangd.arguments": ["--compile-commands-dir=\${workspaceFolder}", "--header-insertion=never"],
  "C_Cpp.intelliSenseEngine": "disabled"
}
JSON

cat >"$tmp/extensions.json" <<'JSON'
{
  "recommendations": ["nvidia.nsight-vscode-edition", "llvm-vs-code-extensions.vscode-clangd"]
}
JSON

for f in tasks.json launch.json settings.json extensions.json; do
    if [ -f ".vscode/$f" ] && ! cmp -s ".vscode/$f" "$tmp/$f"; then
        mv -f ".vscode/$f" ".vscode/$f.orig"
        echo "vscode: .vscode/$f differed: kept as .vscode/$f.orig"
    fi
    cp "$tmp/$f" ".vscode/$f"
done
echo "vscode: wrote .vscode/{tasks,launch,settings,extensions}.json"
echo "vscode: the tasks act on the active editor's sample; clangd needs compile_commands.json (make compile_commands.json)"
