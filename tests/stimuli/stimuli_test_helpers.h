// Shared by the workload tests: expand a warp's lazy stream, filter it, and check the static
// properties every kernel must have.
#pragma once
#include <algorithm>
#include <catch2/catch.hpp>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "model/params.h"
#include "model/workload/stream_walk.h"
#include "stimuli/workload_registry.h"

namespace locsim::test {

inline std::vector<WarpInst> drain(const Kernel& k, std::uint32_t cta, std::uint32_t warp) {
  std::vector<WarpInst> v;
  for_each_warp_inst(k, cta, warp, [&](const WarpInst& in) { v.push_back(in); });
  return v;
}

inline std::vector<WarpInst> only(const std::vector<WarpInst>& v, WarpOp op) {
  std::vector<WarpInst> r;
  std::copy_if(v.begin(), v.end(), std::back_inserter(r),
               [&](const WarpInst& in) { return in.op == op; });
  return r;
}

inline std::size_t count_op(const std::vector<WarpInst>& v, WarpOp op) {
  return only(v, op).size();
}

// The message of the ConfigError building `name` with `args` throws, or "(no error)".
inline std::string error_of(const std::string& name, const WorkloadArgs& args) {
  try {
    make_workload(name, args);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

// One op per pc over the whole kernel (one pc per static instruction), and every stream ends in
// Exit.
inline void check_pcs(const Kernel& k) {
  std::map<std::uint32_t, WarpOp> seen;
  for (std::uint32_t c = 0; c < k.num_ctas(); ++c)
    for (std::uint32_t w = 0; w < k.warps_per_cta(); ++w) {
      const auto v = drain(k, c, w);
      REQUIRE_FALSE(v.empty());
      CHECK(v.back().op == WarpOp::Exit);
      for (const auto& in : v) {
        auto it = seen.emplace(in.pc, in.op).first;
        CHECK(it->second == in.op);
      }
    }
}

// Base address of the kernel's data structure `name` (fails the test if absent).
inline Addr base_of(const Kernel& k, const std::string& name) {
  for (const auto& d : k.data())
    if (d.name == name) return d.base;
  FAIL("no data structure " << name);
  return 0;
}

}  // namespace locsim::test
