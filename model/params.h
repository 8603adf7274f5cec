// Typed configuration parameters with hierarchical names ("l1d.size"), defaults, units and
// descriptions. Values come from defaults, then platform/config JSON files, then --set overrides.
// Every error is a ConfigError with a one-line message that names the key (and file).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace locsim {

// Levenshtein distance (for "did you mean" suggestions).
std::size_t edit_distance(const std::string& a, const std::string& b);

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class ParamType {
  Bool,       // true/false/1/0/yes/no/on/off
  UInt,       // unsigned 64-bit integer, decimal or 0x hex
  Int,        // signed 64-bit integer
  Double,     // floating point
  String,     // free text
  Enum,       // one of a declared list of choices
  Bytes,      // size: 4096, 16KiB, 16KB, 3MiB, 1GiB (KB and KiB both mean 1024)
  Frequency,  // 1.4GHz, 924MHz, 700000000 (Hz)
  Time        // 10ns, 500ps, 1us, 2ms (stored as picoseconds)
};

const char* to_string(ParamType t);

struct ParamInfo {
  std::string name;
  ParamType type = ParamType::String;
  std::string default_text;  // default as written
  std::string value_text;    // current value as written (after normalisation)
  std::string unit;          // display unit ("bytes", "Hz", "cycles", "entries", ...)
  std::string desc;
  std::vector<std::string> choices;  // Enum
  std::string source = "default";    // "default", a file path, or "--set"
};

class ParamRegistry {
 public:
  // Declarations. Redeclaring a name throws std::logic_error. Defaults are parsed immediately
  // (a bad default is a logic_error: a programming mistake).
  void declare(const std::string& name, ParamType type, const std::string& default_text,
               const std::string& unit, const std::string& desc,
               std::vector<std::string> choices = {});

  bool has(const std::string& name) const;
  // Sets from text; throws ConfigError "SOURCE: unknown key 'NAME'" or
  // "SOURCE: key 'NAME': bad value ..." for unknown keys or ill-typed values.
  void set(const std::string& name, const std::string& text, const std::string& source);
  // "key=value" as given to --set.
  void set_assignment(const std::string& assignment);
  // Loads a JSON object; nested objects flatten to dotted names ({"l1d":{"size":"16KiB"}} ->
  // l1d.size). Numbers/bools/strings accepted where the type allows. Throws ConfigError naming the
  // file and key on unknown keys, bad types, unreadable files and JSON syntax errors.
  void load_json_file(const std::string& path);
  void load_json_text(const std::string& text, const std::string& source);

  bool get_bool(const std::string& name) const;
  std::uint64_t get_uint(const std::string& name) const;
  std::int64_t get_int(const std::string& name) const;
  double get_double(const std::string& name) const;
  std::string get_string(const std::string& name) const;  // String and Enum
  std::uint64_t get_bytes(const std::string& name) const;
  double get_frequency_hz(const std::string& name) const;
  std::uint64_t get_time_ps(const std::string& name) const;
  // Convenience: a UInt checked to fit 32 bits and be within [lo, hi]; throws ConfigError.
  // A Bytes parameter checked to lie within [lo, hi] (sizes held in 32-bit fields).
  std::uint32_t get_bytes_u32(const std::string& name, std::uint32_t lo = 0,
                              std::uint32_t hi = 0xffffffffu) const;
  std::uint32_t get_u32(const std::string& name, std::uint32_t lo = 0,
                        std::uint32_t hi = 0xffffffffu) const;

  // All parameters sorted by name.
  std::vector<ParamInfo> list() const;
  const ParamInfo& info(const std::string& name) const;

 private:
  struct Entry {
    ParamInfo info;
    // parsed value cache
    bool b = false;
    std::uint64_t u = 0;
    std::int64_t i = 0;
    double d = 0;
  };
  const Entry& entry(const std::string& name, ParamType expected) const;
  void parse_into(Entry& e, const std::string& text) const;  // throws ConfigError
  std::map<std::string, Entry> entries_;
};

// Clock frequencies accepted by Frequency parameters (periods are whole picoseconds).
constexpr double kMinFrequencyHz = 1e3;
constexpr double kMaxFrequencyHz = 100e9;

// Parsers exposed for tests and the CLI. Each throws ConfigError with a message describing the
// accepted forms (without a key name; callers prefix it).
std::uint64_t parse_bytes(const std::string& text);
double parse_frequency_hz(const std::string& text);
std::uint64_t parse_time_ps(const std::string& text);
bool parse_bool(const std::string& text);
// Plain decimal digits (no sign, no spaces, at most 10 digits) whose value fits 32 bits; nullopt
// otherwise. Stream parsers would read "-1" as 4294967295.
std::optional<std::uint32_t> parse_decimal_u32(const std::string& text);
// The same for 64-bit values (at most 19 digits).
std::optional<std::uint64_t> parse_decimal_u64(const std::string& text);
// A comma-separated list of distinct decimal values below `limit` for key `key`; empty text
// gives an empty list. Errors name the key: "'x' is not a <what>", "<item> N outside <range>",
// "<item> N listed twice", "empty entry".
std::vector<std::uint32_t> parse_index_list(const std::string& key, const std::string& text,
                                            std::uint32_t limit, const std::string& what,
                                            const std::string& item, const std::string& range);

// The one-line message for an exception the JSON library threw while parsing `text` from
// `source`: "SOURCE:LINE:COLUMN: JSON syntax error: ..." or "SOURCE:LINE:COLUMN: number out of
// range '1e400'" (no library prefix).
std::string json_error_message(const std::string& source, const std::string& text,
                               const std::exception& error);

// Default texts written from a configuration struct's own default (so a default is written once):
// 49152 -> "48KiB", 128 -> "128"; 1.4e9 -> "1.4GHz", 924e6 -> "924MHz". Each parses back to
// its argument exactly.
std::string bytes_text(std::uint64_t bytes);
std::string frequency_text(double hz);
inline std::string bool_text(bool b) {
  return b ? "true" : "false";
}

}  // namespace locsim
