// A kernel for unit tests whose warps each load a given list of addresses (one active lane, 4 B
// per load), so locality graphs and reference classes can be checked on hand-made access patterns.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/workload/kernel.h"

namespace locsim::test {

class ReadsKernel final : public Kernel {
 public:
  // reads[cta][warp] = addresses loaded by that warp, in order.
  using Reads = std::vector<std::vector<std::vector<Addr>>>;
  ReadsKernel(Reads reads, std::uint32_t warps_per_cta)
      : reads_(std::move(reads)),
        grid_{static_cast<std::uint32_t>(reads_.size()), 1, 1},
        block_{32 * warps_per_cta, 1, 1} {}
  std::string name() const override { return "reads"; }
  Dim3 grid() const override { return grid_; }
  Dim3 block() const override { return block_; }
  const std::vector<DataStructure>& data() const override { return data_; }
  std::unique_ptr<WarpStream> warp_stream(std::uint32_t cta, std::uint32_t warp) const override {
    const std::vector<Addr>* list = warp < reads_[cta].size() ? &reads_[cta][warp] : nullptr;
    return std::make_unique<Stream>(list);
  }

 private:
  class Stream final : public WarpStream {
   public:
    explicit Stream(const std::vector<Addr>* list) : list_(list) {}
    bool next(WarpInst& in) override {
      if (done_) return false;
      in = WarpInst{};
      if (list_ && i_ < list_->size()) {
        in.op = WarpOp::Load;
        in.active_mask = 1;
        in.addr[0] = (*list_)[i_++];
        return true;
      }
      in.op = WarpOp::Exit;
      done_ = true;
      return true;
    }

   private:
    const std::vector<Addr>* list_;
    std::size_t i_ = 0;
    bool done_ = false;
  };
  Reads reads_;
  Dim3 grid_, block_;
  std::vector<DataStructure> data_;
};

}  // namespace locsim::test
