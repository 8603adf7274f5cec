// The SMs a (possibly merged) memory request serves (GpuExtension::requesters). Almost always
// one to a few entries: the first kInline are stored inline, so that a payload's first
// push_back allocates nothing; more spill to a vector that keeps its capacity across clear().
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace locsim {

class RequesterList {
 public:
  static constexpr unsigned kInline = 8;

  void push_back(std::uint16_t sm) {
    if (n_ < kInline)
      inline_[n_] = sm;
    else
      spill_.push_back(sm);
    ++n_;
  }
  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  std::uint16_t operator[](std::size_t i) const {
    return i < kInline ? inline_[i] : spill_[i - kInline];
  }
  void clear() {
    n_ = 0;
    spill_.clear();
  }
  void assign(std::size_t n, std::uint16_t sm) {
    clear();
    for (std::size_t i = 0; i < n; ++i) push_back(sm);
  }

 private:
  std::uint32_t n_ = 0;
  std::uint16_t inline_[kInline] = {};
  std::vector<std::uint16_t> spill_;  // entries kInline and up
};

}  // namespace locsim
