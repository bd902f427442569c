package minesweeper

// ConfigSchema is the JSON Schema (draft 2020-12) of a config. It cannot say
// that mines ≤ rows*cols−1; Config's decoder checks that. A preset level
// given with dimensions requires them to be the preset's.
const ConfigSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://roomd.dev/schemas/minesweeper/config.json",
  "title": "Minesweeper config",
  "description": "Either a preset level, or explicit rows, cols and mines (the reference's form; other keys such as id and name are kept and echoed). An empty object is the beginner level. mines must be at most rows*cols-1.",
  "type": "object",
  "properties": {
    "level": {
      "description": "A preset id, or custom with explicit rows, cols and mines.",
      "enum": ["beginner", "intermediate", "expert", "nightmare", "custom"]
    },
    "rows": {"type": "integer", "minimum": 1, "maximum": 100},
    "cols": {"type": "integer", "minimum": 1, "maximum": 100},
    "mines": {"type": "integer", "minimum": 0, "maximum": 9999},
    "mode": {
      "description": "solo: one seat; coop: 1-4 seats on one board; race: 2-4 seats, each on its own board from the same seed.",
      "enum": ["solo", "coop", "race"],
      "default": "solo"
    }
  },
  "dependentRequired": {
    "rows": ["cols", "mines"],
    "cols": ["rows", "mines"],
    "mines": ["rows", "cols"]
  },
  "allOf": [
    {"if": {"properties": {"level": {"const": "custom"}}, "required": ["level"]}, "then": {"required": ["rows", "cols", "mines"]}},
    {"if": {"properties": {"level": {"const": "beginner"}}, "required": ["level"]}, "then": {"properties": {"rows": {"const": 9}, "cols": {"const": 9}, "mines": {"const": 10}}}},
    {"if": {"properties": {"level": {"const": "intermediate"}}, "required": ["level"]}, "then": {"properties": {"rows": {"const": 16}, "cols": {"const": 16}, "mines": {"const": 40}}}},
    {"if": {"properties": {"level": {"const": "expert"}}, "required": ["level"]}, "then": {"properties": {"rows": {"const": 16}, "cols": {"const": 30}, "mines": {"const": 99}}}},
    {"if": {"properties": {"level": {"const": "nightmare"}}, "required": ["level"]}, "then": {"properties": {"rows": {"const": 20}, "cols": {"const": 30}, "mines": {"const": 150}}}}
  ],
  "examples": [
    {"level": "expert"},
    {"rows": 9, "cols": 9, "mines": 10, "id": "beginner", "name": "Noobs"},
    {"level": "custom", "rows": 20, "cols": 20, "mines": 60, "mode": "race"}
  ]
}`

// CommandSchema is the JSON Schema (draft 2020-12) of one command. It
// cannot say that r and c are on the board; Apply checks that.
const CommandSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://roomd.dev/schemas/minesweeper/command.json",
  "title": "Minesweeper command",
  "description": "reveal a hidden cell; flag toggles a flag on a cell that is not revealed; chord reveals the hidden neighbours of a revealed number whose flagged neighbours equal it. r and c are 0-based and must be on the board.",
  "type": "object",
  "properties": {
    "type": {"enum": ["reveal", "flag", "chord"]},
    "r": {"type": "integer", "minimum": 0, "maximum": 99},
    "c": {"type": "integer", "minimum": 0, "maximum": 99}
  },
  "required": ["type", "r", "c"],
  "examples": [{"type": "reveal", "r": 4, "c": 4}]
}`
