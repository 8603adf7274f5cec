#include "stimuli/workload_args.h"

#include <stdexcept>

#include "model/params.h"

namespace locsim {

namespace {

std::string known_names(const WorkloadParamDecls& decls) {
  std::string s;
  for (const auto& d : decls) s += (s.empty() ? "" : ", ") + d.first;
  return s.empty() ? "none" : s;
}

// Strict: the whole string is decimal digits, or 0x followed by hex digits; no sign, no spaces.
bool parse_u64(const std::string& s, std::uint64_t& out) {
  const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  const std::uint64_t base = hex ? 16 : 10;
  std::size_t i = hex ? 2 : 0;
  if (i >= s.size()) return false;
  std::uint64_t v = 0;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    std::uint64_t d;
    if (c >= '0' && c <= '9')
      d = static_cast<std::uint64_t>(c - '0');
    else if (hex && c >= 'a' && c <= 'f')
      d = static_cast<std::uint64_t>(c - 'a' + 10);
    else if (hex && c >= 'A' && c <= 'F')
      d = static_cast<std::uint64_t>(c - 'A' + 10);
    else
      return false;
    if (v > (~std::uint64_t{0} - d) / base) return false;  // overflow
    v = v * base + d;
  }
  out = v;
  return true;
}

}  // namespace

void check_workload_args(const std::string& workload, const WorkloadParamDecls& decls,
                         const WorkloadArgs& args) {
  for (const auto& a : args) {
    bool known = false;
    for (const auto& d : decls) known = known || d.first == a.first;
    if (!known)
      throw ConfigError("workload '" + workload + "': unknown parameter '" + a.first +
                        "' (known: " + known_names(decls) + ")");
  }
}

WorkloadArgReader::WorkloadArgReader(std::string workload, WorkloadParamDecls decls,
                                     const WorkloadArgs& args)
    : workload_(std::move(workload)), decls_(std::move(decls)), args_(args) {
  check_workload_args(workload_, decls_, args_);
}

const std::string& WorkloadArgReader::text(const std::string& param) const {
  for (const auto& d : decls_) {
    if (d.first != param) continue;
    auto it = args_.find(param);
    return it != args_.end() ? it->second : d.second.first;
  }
  throw std::logic_error("workload '" + workload_ + "': parameter '" + param +
                         "' read but not declared");
}

std::uint32_t WorkloadArgReader::get_u32(const std::string& param, const UIntRule& r) const {
  const std::string& s = text(param);
  std::uint64_t v = 0;
  const bool parsed = parse_u64(s, v);
  if (parsed && v >= r.min && v <= r.max && (r.multiple_of <= 1 || v % r.multiple_of == 0))
    return static_cast<std::uint32_t>(v);
  std::string expect = "must be ";
  if (!parsed) expect = "expected an unsigned integer; " + expect;
  if (r.multiple_of > 1) expect += "a multiple of " + std::to_string(r.multiple_of) + " ";
  expect += "in [" + std::to_string(r.min) + ", " + std::to_string(r.max) + "]";
  if (!r.why.empty()) expect += ": " + r.why;
  throw ConfigError("workload '" + workload_ + "': parameter '" + param + "': bad value '" + s +
                    "' (" + expect + ")");
}

}  // namespace locsim
