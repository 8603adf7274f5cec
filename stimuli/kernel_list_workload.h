// The generic Workload: a name, a description and kernels in launch order.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/workload/kernel.h"

namespace locsim {

class KernelListWorkload final : public Workload {
 public:
  KernelListWorkload(std::string name, std::string description,
                     std::vector<std::unique_ptr<Kernel>> kernels)
      : name_(std::move(name)),
        description_(std::move(description)),
        kernels_(std::move(kernels)) {}

  std::string name() const override { return name_; }
  std::string description() const override { return description_; }
  const std::vector<std::unique_ptr<Kernel>>& kernels() const override { return kernels_; }

 private:
  std::string name_, description_;
  std::vector<std::unique_ptr<Kernel>> kernels_;
};

}  // namespace locsim
