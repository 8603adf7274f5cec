// Typed configuration-parameter registry (see params.h for the contract).
#include "model/params.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

namespace locsim {
namespace {

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

// What each type accepts; shared by the parsers and the JSON type errors.
constexpr const char* kExpectBytes = "a size such as 4096, 16KiB, 3MiB";
constexpr const char* kExpectFrequency = "a frequency such as 1.4GHz, 924MHz or 700000000 (Hz)";
constexpr const char* kExpectTime = "a time with a unit such as 500ps, 10ns, 1us, 2ms";
constexpr const char* kExpectBool = "true/false, yes/no, on/off or 1/0";
constexpr const char* kExpectUInt = "an unsigned integer (decimal or 0x hex)";
constexpr const char* kExpectInt = "a signed decimal integer";
constexpr const char* kExpectDouble = "a finite number";
constexpr const char* kExpectString = "a string";

// Escapes control characters so that every message stays on one line.
std::string escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string quote(const std::string& s) {
  return "'" + escape(s) + "'";
}

// "SOURCE: " in front of messages about a value that came from SOURCE.
std::string prefix(const std::string& source) {
  return source.empty() ? std::string() : escape(source) + ": ";
}

[[noreturn]] void bad_value(const std::string& text, const std::string& expected,
                            const std::string& detail = "") {
  throw ConfigError("bad value " + quote(text) + " (" + (detail.empty() ? "" : detail + "; ") +
                    "expected " + expected + ")");
}

std::string trim(const std::string& s) {
  const char* ws = " \t\r\n\f\v";
  const auto b = s.find_first_not_of(ws);
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

// ASCII only: std::tolower is locale-dependent and undefined for negative chars.
char lower_char(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string lower(std::string s) {
  for (char& c : s) c = lower_char(c);
  return s;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

void skip_spaces(const std::string& s, std::size_t& pos) {
  while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t')) ++pos;
}

// An unsigned decimal mantissa "123" or "1.25", kept exact (no floating point).
struct Decimal {
  std::uint64_t whole = 0;
  bool overflow = false;
  std::string frac;  // digits after the point, trailing zeros removed
};

// Reads digits[.digits] at s[pos], advancing pos; false if there is no well-formed mantissa.
bool parse_decimal(const std::string& s, std::size_t& pos, Decimal& d) {
  const std::size_t start = pos;
  for (; pos < s.size() && is_digit(s[pos]); ++pos) {
    const unsigned digit = static_cast<unsigned>(s[pos] - '0');
    if (d.whole > (kU64Max - digit) / 10)
      d.overflow = true;
    else
      d.whole = d.whole * 10 + digit;
  }
  if (pos == start) return false;
  if (pos < s.size() && s[pos] == '.') {
    const std::size_t f = ++pos;
    while (pos < s.size() && is_digit(s[pos])) ++pos;
    if (pos == f) return false;  // "1." is a typo more likely than a number
    d.frac = s.substr(f, pos - f);
    while (!d.frac.empty() && d.frac.back() == '0') d.frac.pop_back();
  }
  return true;
}

std::uint64_t pow_u64(std::uint64_t base, unsigned exp) {
  std::uint64_t r = 1;
  while (exp--) r *= base;
  return r;
}

std::uint64_t parse_uint(const std::string& text) {
  const std::string s = trim(text);
  if (s.empty()) bad_value(text, kExpectUInt, "empty");
  if (s[0] == '-') bad_value(text, kExpectUInt, "negative");
  const bool hex = s.size() > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  const unsigned base = hex ? 16 : 10;
  std::size_t pos = hex ? 2 : 0;
  if (pos == s.size()) bad_value(text, kExpectUInt);
  std::uint64_t v = 0;
  for (; pos < s.size(); ++pos) {
    const char c = lower_char(s[pos]);
    unsigned digit;
    if (is_digit(c))
      digit = static_cast<unsigned>(c - '0');
    else if (hex && c >= 'a' && c <= 'f')
      digit = static_cast<unsigned>(c - 'a' + 10);
    else
      bad_value(text, kExpectUInt);
    if (v > (kU64Max - digit) / base) bad_value(text, kExpectUInt, "too large");
    v = v * base + digit;
  }
  return v;
}

std::int64_t parse_int(const std::string& text) {
  const std::string s = trim(text);
  if (s.empty()) bad_value(text, kExpectInt, "empty");
  const bool neg = s[0] == '-';
  std::size_t pos = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (pos == s.size()) bad_value(text, kExpectInt);
  std::uint64_t mag = 0;
  // |INT64_MIN| is one more than INT64_MAX.
  const std::uint64_t limit =
      static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + (neg ? 1 : 0);
  for (; pos < s.size(); ++pos) {
    if (!is_digit(s[pos])) bad_value(text, kExpectInt);
    const unsigned digit = static_cast<unsigned>(s[pos] - '0');
    if (mag > (limit - digit) / 10) bad_value(text, kExpectInt, "out of 64-bit range");
    mag = mag * 10 + digit;
  }
  if (!neg) return static_cast<std::int64_t>(mag);
  // Negate in unsigned arithmetic so that INT64_MIN does not overflow.
  return mag == limit ? std::numeric_limits<std::int64_t>::min() : -static_cast<std::int64_t>(mag);
}

double parse_double(const std::string& text) {
  const std::string s = trim(text);
  if (s.empty()) bad_value(text, kExpectDouble, "empty");
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) bad_value(text, kExpectDouble);
  if (!std::isfinite(v)) bad_value(text, kExpectDouble, "not finite");
  return v;
}

}  // namespace

const char* to_string(ParamType t) {
  switch (t) {
    case ParamType::Bool:
      return "bool";
    case ParamType::UInt:
      return "uint";
    case ParamType::Int:
      return "int";
    case ParamType::Double:
      return "double";
    case ParamType::String:
      return "string";
    case ParamType::Enum:
      return "enum";
    case ParamType::Bytes:
      return "bytes";
    case ParamType::Frequency:
      return "frequency";
    case ParamType::Time:
      return "time";
  }
  return "?";
}

std::vector<std::uint32_t> parse_index_list(const std::string& key, const std::string& text,
                                            std::uint32_t limit, const std::string& what,
                                            const std::string& item, const std::string& range) {
  std::vector<std::uint32_t> out;
  if (text.find_first_not_of(" \t") == std::string::npos) return out;
  std::size_t pos = 0;
  for (;;) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string tok = trim(text.substr(pos, comma - pos));
    if (tok.empty()) throw ConfigError("key '" + key + "': empty entry in '" + text + "'");
    const std::optional<std::uint32_t> v = parse_decimal_u32(tok);
    if (!v) throw ConfigError("key '" + key + "': '" + tok + "' is not a " + what);
    if (*v >= limit)
      throw ConfigError("key '" + key + "': " + item + " " + tok + " outside " + range);
    if (std::find(out.begin(), out.end(), *v) != out.end())
      throw ConfigError("key '" + key + "': " + item + " " + tok + " listed twice");
    out.push_back(*v);
    if (comma == text.size()) break;
    pos = comma + 1;
  }
  return out;
}

std::uint64_t parse_bytes(const std::string& text) {
  const std::string s = trim(text);
  if (s.empty()) bad_value(text, kExpectBytes, "empty");
  if (s[0] == '-') bad_value(text, kExpectBytes, "negative");
  std::size_t pos = 0;
  Decimal d;
  if (!parse_decimal(s, pos, d)) bad_value(text, kExpectBytes);
  skip_spaces(s, pos);
  const std::string unit = s.substr(pos);
  // KB/MB/GB and K/M/G are binary like KiB/MiB/GiB: memory sizes are never meant as powers of
  // ten here, and treating them as such would silently give non-power-of-two caches.
  static const std::pair<const char*, unsigned> kUnits[] = {
      {"", 0},    {"b", 0},    {"k", 10}, {"kb", 10}, {"kib", 10}, {"m", 20},
      {"mb", 20}, {"mib", 20}, {"g", 30}, {"gb", 30}, {"gib", 30}};
  int shift = -1;
  for (const auto& u : kUnits)
    if (lower(unit) == u.first) shift = static_cast<int>(u.second);
  if (shift < 0) bad_value(text, kExpectBytes, "unknown unit " + quote(unit));
  const unsigned sh = static_cast<unsigned>(shift);
  if (d.overflow || d.whole > (kU64Max >> sh)) bad_value(text, kExpectBytes, "too large");
  std::uint64_t v = d.whole << sh;
  if (!d.frac.empty()) {
    // value = F / 10^n * 2^sh, exact: 5^n must divide F, then the power of two must cancel.
    const unsigned n = static_cast<unsigned>(d.frac.size());
    if (n > 19) bad_value(text, kExpectBytes, "too many decimal places");
    const std::uint64_t f = std::strtoull(d.frac.c_str(), nullptr, 10);
    const std::uint64_t p5 = pow_u64(5, n);
    if (f % p5) bad_value(text, kExpectBytes, "not a whole number of bytes");
    const std::uint64_t g = f / p5;  // < 2^n
    std::uint64_t part;
    if (sh >= n) {
      part = g << (sh - n);
    } else {
      if (g & ((std::uint64_t{1} << (n - sh)) - 1))
        bad_value(text, kExpectBytes, "not a whole number of bytes");
      part = g >> (n - sh);
    }
    if (v > kU64Max - part) bad_value(text, kExpectBytes, "too large");
    v += part;
  }
  return v;
}

double parse_frequency_hz(const std::string& text) {
  const std::string s = trim(text);
  if (s.empty()) bad_value(text, kExpectFrequency, "empty");
  if (s[0] == '-') bad_value(text, kExpectFrequency, "must be greater than 0");
  // Validate the mantissa ourselves: strtod alone would also take "inf", "nan" and hex floats.
  std::size_t pos = 0;
  Decimal ignored;
  if (!parse_decimal(s, pos, ignored)) bad_value(text, kExpectFrequency);
  if (pos < s.size() && (s[pos] == 'e' || s[pos] == 'E')) {
    std::size_t p = pos + 1;
    if (p < s.size() && (s[p] == '+' || s[p] == '-')) ++p;
    const std::size_t digits = p;
    while (p < s.size() && is_digit(s[p])) ++p;
    if (p == digits) bad_value(text, kExpectFrequency);
    pos = p;
  }
  const double mantissa = std::strtod(s.substr(0, pos).c_str(), nullptr);
  skip_spaces(s, pos);
  const std::string unit = lower(s.substr(pos));
  double mult;
  if (unit.empty() || unit == "hz")
    mult = 1;
  else if (unit == "khz")
    mult = 1e3;
  else if (unit == "mhz")
    mult = 1e6;
  else if (unit == "ghz")
    mult = 1e9;
  else
    bad_value(text, kExpectFrequency, "unknown unit " + quote(s.substr(pos)));
  const double hz = mantissa * mult;
  if (!std::isfinite(hz)) bad_value(text, kExpectFrequency, "too large");
  if (!(hz > 0)) bad_value(text, kExpectFrequency, "must be greater than 0");
  // Clock periods are whole picoseconds (SystemC's 1 ps resolution): above 100 GHz the rounding
  // would change the clock by more than 5% (and above 2 THz the period is 0); below 1 kHz a run's
  // cycle counts overflow the time axis long before anything happens.
  if (hz > kMaxFrequencyHz) bad_value(text, kExpectFrequency, "above the 100GHz limit");
  if (hz < kMinFrequencyHz) bad_value(text, kExpectFrequency, "below the 1kHz limit");
  return hz;
}

std::uint64_t parse_time_ps(const std::string& text) {
  const std::string s = trim(text);
  if (s.empty()) bad_value(text, kExpectTime, "empty");
  if (s[0] == '-') bad_value(text, kExpectTime, "negative");
  std::size_t pos = 0;
  Decimal d;
  if (!parse_decimal(s, pos, d)) bad_value(text, kExpectTime);
  skip_spaces(s, pos);
  const std::string unit = lower(s.substr(pos));
  unsigned exp10;
  if (unit == "ps")
    exp10 = 0;
  else if (unit == "ns")
    exp10 = 3;
  else if (unit == "us")
    exp10 = 6;
  else if (unit == "ms")
    exp10 = 9;
  else if (unit == "s")
    exp10 = 12;
  else if (unit.empty() && !d.overflow && d.whole == 0 && d.frac.empty())
    return 0;  // zero needs no unit
  else if (unit.empty())
    // A bare number is ambiguous (10 ps? 10 ns?), so a unit is required.
    bad_value(text, kExpectTime, "missing unit");
  else
    bad_value(text, kExpectTime, "unknown unit " + quote(s.substr(pos)));
  const std::uint64_t scale = pow_u64(10, exp10);
  if (d.overflow || d.whole > kU64Max / scale) bad_value(text, kExpectTime, "too large");
  std::uint64_t v = d.whole * scale;
  if (!d.frac.empty()) {
    // The fraction has no trailing zeros, so more digits than the unit's exponent leave a
    // fractional picosecond.
    const unsigned n = static_cast<unsigned>(d.frac.size());
    if (n > exp10) bad_value(text, kExpectTime, "not a whole number of picoseconds");
    const std::uint64_t part = std::strtoull(d.frac.c_str(), nullptr, 10) * pow_u64(10, exp10 - n);
    if (v > kU64Max - part) bad_value(text, kExpectTime, "too large");
    v += part;
  }
  return v;
}

std::optional<std::uint64_t> parse_decimal_u64(const std::string& text) {
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoull(text);
}

std::optional<std::uint32_t> parse_decimal_u32(const std::string& text) {
  const auto x = text.size() > 10 ? std::nullopt : parse_decimal_u64(text);
  if (!x || *x > 0xffffffffULL) return std::nullopt;
  return static_cast<std::uint32_t>(*x);
}

bool parse_bool(const std::string& text) {
  const std::string s = lower(trim(text));
  if (s == "true" || s == "1" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "0" || s == "no" || s == "off") return false;
  bad_value(text, kExpectBool, s.empty() ? "empty" : "");
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

namespace {

std::string expected_for(const ParamInfo& info) {
  switch (info.type) {
    case ParamType::Bool:
      return kExpectBool;
    case ParamType::UInt:
      return kExpectUInt;
    case ParamType::Int:
      return kExpectInt;
    case ParamType::Double:
      return kExpectDouble;
    case ParamType::String:
      return kExpectString;
    case ParamType::Enum: {
      std::string s = "one of:";
      for (std::size_t k = 0; k < info.choices.size(); ++k) s += (k ? ", " : " ") + info.choices[k];
      return s;
    }
    case ParamType::Bytes:
      return kExpectBytes;
    case ParamType::Frequency:
      return kExpectFrequency;
    case ParamType::Time:
      return kExpectTime;
  }
  return "?";
}

bool valid_name(const std::string& name) {
  if (name.empty() || name.front() == '.' || name.back() == '.') return false;
  if (name.find("..") != std::string::npos) return false;
  for (char c : name) {
    const char l = lower_char(c);
    if (!(is_digit(c) || (l >= 'a' && l <= 'z') || c == '_' || c == '-' || c == '.')) return false;
  }
  return true;
}

std::string last_component(const std::string& name) {
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

// " (did you mean 'X'?)" for the closest declared key: within edit distance 2 or sharing the
// last component (l1.size -> l1d.size). Case-insensitive; ties go to the first name in order.
template <class Map>
std::string suggestion(const Map& entries, const std::string& key) {
  const std::string k = lower(key), k_last = last_component(k);
  const std::string* best = nullptr;
  std::size_t best_dist = 0;
  for (const auto& kv : entries) {
    const std::string n = lower(kv.first);
    const std::size_t dist = edit_distance(k, n);
    if (dist > 2 && (k_last.empty() || last_component(n) != k_last)) continue;
    if (!best || dist < best_dist) {
      best = &kv.first;
      best_dist = dist;
    }
  }
  return best ? " (did you mean " + quote(*best) + "?)" : "";
}

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '\r', ' ');
  return s;
}

using Json = nlohmann::json;

// "LINE:COLUMN" (both from 1) of byte offset `at` in `text`.
std::string text_position(const std::string& text, std::size_t at) {
  at = std::min(at, text.size());
  std::size_t line = 1, start = 0;
  for (std::size_t i = 0; i < at; ++i)
    if (text[i] == '\n') {
      ++line;
      start = i + 1;
    }
  return std::to_string(line) + ":" + std::to_string(at - start + 1);
}

// Where the k-th (from 1) object key or '{' of a JSON text starts, in parse order (the order of
// the parser's callback events on valid text). text.size() if there is none.
std::size_t json_token_at(const std::string& text, bool key, std::size_t k) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '{' && !key && ++seen == k) return i;
    if (text[i] != '"') continue;
    std::size_t j = i + 1;
    while (j < text.size() && text[j] != '"') j += text[j] == '\\' ? 2 : 1;
    std::size_t n = j + 1;
    while (n < text.size() &&
           (text[n] == ' ' || text[n] == '\t' || text[n] == '\n' || text[n] == '\r'))
      ++n;
    if (key && n < text.size() && text[n] == ':' && ++seen == k) return i;
    i = j;
  }
  return text.size();
}

// Every key has at most a few components; deeper nesting is a malformed file (and deep recursion
// and quadratic dotted names on a hostile one). Checked while parsing (load_json_text).
constexpr int kMaxConfigDepth = 16;

// Nested objects become dotted names; everything else is a leaf (checked by the caller).
void flatten(const Json& obj, const std::string& path,
             std::vector<std::pair<std::string, const Json*>>& out) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const std::string name = path.empty() ? it.key() : path + "." + it.key();
    if (it->is_object() && !it->empty())
      flatten(*it, name, out);
    else
      out.emplace_back(name, &*it);
  }
}

}  // namespace

std::string json_error_message(const std::string& source, const std::string& text,
                               const std::exception& error) {
  std::string what = error.what();
  if (const auto* e = dynamic_cast<const Json::parse_error*>(&error)) {
    // "SOURCE:LINE:COLUMN: JSON syntax error: what" without the library's "[json.exception...]
    // parse error at line L, column C: " prefix.
    std::string where = text_position(text, e->byte ? e->byte - 1 : 0);
    const auto line = what.find(" at line "), col = what.find(", column ");
    const auto colon = col == std::string::npos ? col : what.find(": ", col);
    if (line != std::string::npos && colon != std::string::npos) {
      where = what.substr(line + 9, col - line - 9) + ":" + what.substr(col + 9, colon - col - 9);
      what = what.substr(colon + 2);
    }
    return escape(source) + ":" + where + ": JSON syntax error: " + one_line(what);
  }
  if (dynamic_cast<const Json::out_of_range*>(&error)) {
    // 406: a number such as 1e400 that no double holds; the library gives its text, not where.
    const auto q = what.find('\'');
    const std::string number =
        q == std::string::npos ? "" : what.substr(q + 1, what.find('\'', q + 1) - q - 1);
    const auto at = number.empty() ? std::string::npos : text.find(number);
    return escape(source) + (at == std::string::npos ? "" : ":" + text_position(text, at)) +
           ": number out of range" + (number.empty() ? "" : " " + quote(number));
  }
  return escape(source) + ": bad JSON: " + one_line(what);
}

void ParamRegistry::declare(const std::string& name, ParamType type,
                            const std::string& default_text, const std::string& unit,
                            const std::string& desc, std::vector<std::string> choices) {
  if (!valid_name(name))
    throw std::logic_error("ParamRegistry::declare: invalid parameter name " + quote(name));
  if (entries_.count(name))
    throw std::logic_error("ParamRegistry::declare: parameter " + quote(name) + " declared twice");
  if ((type == ParamType::Enum) == choices.empty())
    throw std::logic_error(
        "ParamRegistry::declare: parameter " + quote(name) +
        (choices.empty() ? ": an enum needs choices" : ": only enums take choices"));
  Entry e;
  e.info.name = name;
  e.info.type = type;
  e.info.default_text = default_text;
  e.info.unit = unit;
  e.info.desc = desc;
  e.info.choices = std::move(choices);
  try {
    parse_into(e, default_text);
  } catch (const ConfigError& err) {
    throw std::logic_error("ParamRegistry::declare: parameter " + quote(name) +
                           ": bad default: " + err.what());
  }
  e.info.source = "default";
  entries_.emplace(name, std::move(e));
}

bool ParamRegistry::has(const std::string& name) const {
  return entries_.count(name) != 0;
}

void ParamRegistry::parse_into(Entry& e, const std::string& text) const {
  ParamInfo& info = e.info;
  switch (info.type) {
    case ParamType::Bool:
      e.b = parse_bool(text);
      info.value_text = e.b ? "true" : "false";
      return;
    case ParamType::UInt:
      e.u = parse_uint(text);
      info.value_text = std::to_string(e.u);
      return;
    case ParamType::Int:
      e.i = parse_int(text);
      info.value_text = std::to_string(e.i);
      return;
    case ParamType::Double:
      e.d = parse_double(text);
      info.value_text = trim(text);
      return;
    case ParamType::String:
      info.value_text = text;
      return;
    case ParamType::Enum: {
      const std::string s = trim(text);
      // Exact match first; a case-insensitive match is normalised to the declared spelling.
      for (const auto& c : info.choices)
        if (c == s) {
          info.value_text = c;
          return;
        }
      for (const auto& c : info.choices)
        if (lower(c) == lower(s)) {
          info.value_text = c;
          return;
        }
      bad_value(text, expected_for(info));
    }
    case ParamType::Bytes:
      e.u = parse_bytes(text);
      info.value_text = trim(text);  // as written: "32KiB" reads better than 32768
      return;
    case ParamType::Frequency:
      e.d = parse_frequency_hz(text);
      info.value_text = trim(text);
      return;
    case ParamType::Time:
      e.u = parse_time_ps(text);
      info.value_text = trim(text);
      return;
  }
}

void ParamRegistry::set(const std::string& name, const std::string& text,
                        const std::string& source) {
  auto it = entries_.find(name);
  if (it == entries_.end())
    throw ConfigError(prefix(source) + "unknown key " + quote(name) + suggestion(entries_, name));
  // Parse into a copy so that a bad value leaves the old one in place.
  Entry e = it->second;
  try {
    parse_into(e, text);
  } catch (const ConfigError& err) {
    throw ConfigError(prefix(source) + "key " + quote(name) + ": " + err.what());
  }
  e.info.source = source;
  it->second = std::move(e);
}

void ParamRegistry::set_assignment(const std::string& assignment) {
  const auto eq = assignment.find('=');
  const std::string key = eq == std::string::npos ? "" : trim(assignment.substr(0, eq));
  if (key.empty()) throw ConfigError("--set " + quote(assignment) + ": expected key=value");
  set(key, assignment.substr(eq + 1), "--set");
}

void ParamRegistry::load_json_file(const std::string& path) {
  std::string text;
  bool ok = false;
  try {
    std::ifstream f(path, std::ios::binary);
    if (f) {
      text.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
      ok = !f.bad();
    }
  } catch (const std::exception&) {
    ok = false;  // libstdc++ throws from underflow() when reading e.g. a directory
  }
  if (!ok) throw ConfigError("cannot read config file " + quote(path));
  load_json_text(text, path);
}

void ParamRegistry::load_json_text(const std::string& text, const std::string& source) {
  Json j;
  // The parser's callback sees every key: a key repeated inside one object (which the JSON
  // library would silently resolve to its last value) and nesting deeper than any parameter
  // name are errors naming the file.
  std::vector<std::set<std::string>> open_objects;
  std::string error;
  std::size_t keys = 0, objects = 0, error_at = 0;  // events so far; the error's position
  auto check = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (!error.empty()) return true;
    switch (event) {
      case Json::parse_event_t::object_start:
        ++objects;
        if (depth >= kMaxConfigDepth) {
          error = "objects nested deeper than " + std::to_string(kMaxConfigDepth) + " levels";
          error_at = json_token_at(text, false, objects);
        }
        open_objects.emplace_back();
        break;
      case Json::parse_event_t::object_end:
        if (!open_objects.empty()) open_objects.pop_back();
        break;
      case Json::parse_event_t::key:
        ++keys;
        if (!open_objects.empty() &&
            !open_objects.back().insert(parsed.get<std::string>()).second) {
          error = "key " + quote(parsed.get<std::string>()) + " appears twice in one object";
          error_at = json_token_at(text, true, keys);
        }
        break;
      default:
        break;
    }
    return true;
  };
  try {
    j = Json::parse(text, check);
  } catch (const Json::exception& e) {
    throw ConfigError(json_error_message(source, text, e));
  }
  if (!error.empty())
    throw ConfigError(escape(source) + ":" + text_position(text, error_at) + ": " + error);
  if (!j.is_object())
    throw ConfigError(quote(source) + ": expected a JSON object at the top level, not " +
                      j.type_name());
  std::vector<std::pair<std::string, const Json*>> leaves;
  flatten(j, "", leaves);

  // All or nothing: a file with one bad key changes no value.
  const auto saved = entries_;
  try {
    std::set<std::string> seen;
    for (const auto& leaf : leaves) {
      const std::string& name = leaf.first;
      const Json& v = *leaf.second;
      auto it = entries_.find(name);
      if (it == entries_.end())
        throw ConfigError(prefix(source) + "unknown key " + quote(name) +
                          suggestion(entries_, name));
      if (!seen.insert(name).second)
        throw ConfigError(prefix(source) + "key " + quote(name) + " is given more than once");
      const ParamInfo& info = it->second.info;
      std::string value;
      bool allowed = true;
      switch (v.type()) {
        case Json::value_t::string:
          value = v.get<std::string>();
          break;
        case Json::value_t::boolean:
          allowed = info.type == ParamType::Bool || info.type == ParamType::String;
          value = v.get<bool>() ? "true" : "false";
          break;
        case Json::value_t::number_unsigned:
          value = std::to_string(v.get<std::uint64_t>());
          break;
        case Json::value_t::number_integer:
          value = std::to_string(v.get<std::int64_t>());
          break;
        case Json::value_t::number_float:
          value = v.dump();  // shortest text that round-trips
          break;
        default:  // null, array, empty object, binary
          allowed = false;
          break;
      }
      if (!allowed)
        throw ConfigError(prefix(source) + "key " + quote(name) + ": a JSON " + v.type_name() +
                          " is not allowed (expected " + expected_for(info) + ")");
      set(name, value, source);
    }
  } catch (...) {
    entries_ = saved;
    throw;
  }
}

const ParamRegistry::Entry& ParamRegistry::entry(const std::string& name,
                                                 ParamType expected) const {
  auto it = entries_.find(name);
  if (it == entries_.end())
    throw std::logic_error("ParamRegistry: parameter " + quote(name) + " is not declared");
  const ParamType t = it->second.info.type;
  // get_string() serves enums too.
  if (t != expected && !(expected == ParamType::String && t == ParamType::Enum))
    throw std::logic_error("ParamRegistry: parameter " + quote(name) + " is a " + to_string(t) +
                           ", not a " + to_string(expected));
  return it->second;
}

bool ParamRegistry::get_bool(const std::string& name) const {
  return entry(name, ParamType::Bool).b;
}
std::uint64_t ParamRegistry::get_uint(const std::string& name) const {
  return entry(name, ParamType::UInt).u;
}
std::int64_t ParamRegistry::get_int(const std::string& name) const {
  return entry(name, ParamType::Int).i;
}
double ParamRegistry::get_double(const std::string& name) const {
  return entry(name, ParamType::Double).d;
}
std::string ParamRegistry::get_string(const std::string& name) const {
  return entry(name, ParamType::String).info.value_text;
}
std::uint64_t ParamRegistry::get_bytes(const std::string& name) const {
  return entry(name, ParamType::Bytes).u;
}
double ParamRegistry::get_frequency_hz(const std::string& name) const {
  return entry(name, ParamType::Frequency).d;
}
std::uint64_t ParamRegistry::get_time_ps(const std::string& name) const {
  return entry(name, ParamType::Time).u;
}

std::uint32_t ParamRegistry::get_u32(const std::string& name, std::uint32_t lo,
                                     std::uint32_t hi) const {
  const Entry& e = entry(name, ParamType::UInt);
  if (lo > hi) throw std::logic_error("ParamRegistry::get_u32: empty range for " + quote(name));
  if (e.u < lo || e.u > hi)
    throw ConfigError("key " + quote(name) + ": " + std::to_string(e.u) + " is out of range [" +
                      std::to_string(lo) + ", " + std::to_string(hi) + "] (set by " +
                      escape(e.info.source) + ")");
  return static_cast<std::uint32_t>(e.u);
}

std::uint32_t ParamRegistry::get_bytes_u32(const std::string& name, std::uint32_t lo,
                                           std::uint32_t hi) const {
  const Entry& e = entry(name, ParamType::Bytes);
  if (lo > hi)
    throw std::logic_error("ParamRegistry::get_bytes_u32: empty range for " + quote(name));
  if (e.u < lo || e.u > hi)
    throw ConfigError("key " + quote(name) + ": " + std::to_string(e.u) +
                      " bytes is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                      "] (set by " + escape(e.info.source) + ")");
  return static_cast<std::uint32_t>(e.u);
}

std::vector<ParamInfo> ParamRegistry::list() const {
  std::vector<ParamInfo> out;
  out.reserve(entries_.size());
  for (const auto& kv : entries_) out.push_back(kv.second.info);  // std::map: already sorted
  return out;
}

const ParamInfo& ParamRegistry::info(const std::string& name) const {
  auto it = entries_.find(name);
  if (it == entries_.end())
    throw std::logic_error("ParamRegistry: parameter " + quote(name) + " is not declared");
  return it->second.info;
}

std::string bytes_text(std::uint64_t bytes) {
  static const char* const units[] = {"", "KiB", "MiB", "GiB"};  // what parse_bytes reads
  unsigned u = 0;
  while (u + 1 < sizeof(units) / sizeof(units[0]) && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++u;
  }
  return std::to_string(bytes) + units[u];
}

std::string frequency_text(double hz) {
  // The largest unit that leaves at most three decimals; trailing zeros dropped.
  static const std::pair<double, const char*> units[] = {{1e9, "GHz"}, {1e6, "MHz"}, {1e3, "kHz"}};
  for (const auto& u : units) {
    const double v = hz / u.first;
    if (v < 1) continue;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    std::string t = buf;
    if (parse_frequency_hz(t + u.second) != hz) continue;
    while (t.back() == '0') t.pop_back();
    if (t.back() == '.') t.pop_back();
    return t + u.second;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", hz);
  return buf;
}

}  // namespace locsim
