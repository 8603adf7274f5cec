// Per-CTA access sets computed from a kernel's warp streams, without timing simulation: for every
// CTA, per data structure, the sorted set of cache lines it touches and the bytes it reads and
// writes. Input to PAVER's locality graph (edge weight = lines shared by two CTAs) and to footprint
// analyses. Data-structure attribution is by address range (Kernel::data() base/bytes); addresses
// outside every range go to an extra "unknown" entry (index data().size()).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/types.h"
#include "model/workload/kernel.h"

namespace locsim {

struct AccessSetOptions {
  std::uint32_t line_bytes = 128;  // power of two
};

// What one CTA does to one data structure.
struct DsAccess {
  std::vector<Addr> lines;  // sorted, distinct line addresses (loads, stores and atomics)
  // Sum over the active lanes of each global instruction of its access size (a byte touched by
  // two lanes or two instructions counts twice). Atomics count as read and as write.
  std::uint64_t read_bytes = 0;
  std::uint64_t write_bytes = 0;
};

struct CtaAccessSet {
  std::vector<DsAccess> ds;  // one per data structure, then "unknown"
  std::uint64_t lines() const;
  std::uint64_t read_bytes() const;
  std::uint64_t write_bytes() const;
};

class KernelAccessSets {
 public:
  std::uint32_t line_bytes = 128;
  std::vector<std::string> ds_names;  // Kernel::data() names, then "unknown"
  std::vector<CtaAccessSet> ctas;     // index = linear CTA id

  std::uint32_t num_ctas() const { return static_cast<std::uint32_t>(ctas.size()); }
  std::size_t unknown_index() const { return ds_names.size() - 1; }
  // Lines touched by both CTAs (summed over data structures; a line lies in one structure).
  std::uint64_t shared_lines(std::uint32_t cta_a, std::uint32_t cta_b) const;
  // The same, restricted to data structure ds.
  std::uint64_t shared_lines(std::uint32_t cta_a, std::uint32_t cta_b, std::size_t ds) const;
  // Distinct lines touched by the whole kernel (union over CTAs), in total and per structure.
  std::uint64_t footprint_lines() const;
  std::uint64_t footprint_lines(std::size_t ds) const;
  std::uint64_t footprint_bytes() const { return footprint_lines() * line_bytes; }
  // Sum over CTAs of their line-set sizes (>= footprint_lines(); equal iff no line is shared).
  std::uint64_t total_cta_lines() const;
  std::uint64_t total_read_bytes() const;
  std::uint64_t total_write_bytes() const;
  // Heap bytes held by this representation (vector capacities).
  std::size_t memory_bytes() const;
};

// Number of elements common to two sorted, duplicate-free vectors.
std::uint64_t sorted_intersection_size(const std::vector<Addr>& a, const std::vector<Addr>& b);

// Runs every warp stream of every CTA once. Throws std::invalid_argument for a bad line size.
KernelAccessSets compute_access_sets(const Kernel& k, const AccessSetOptions& opt = {});

// Per-CTA access sets of one kernel on demand, for CTA policies that place CTAs by the data they
// share: running a kernel's streams costs as much as a functional replay, so nothing is computed
// until a CTA's set is asked for, and each CTA's set is computed once.
class CtaAccessSetProvider {
 public:
  virtual ~CtaAccessSetProvider() = default;
  virtual std::uint32_t line_bytes() const = 0;
  // Kernel::data() names, then "unknown": the data-structure index of CtaAccessSet::ds.
  virtual const std::vector<std::string>& ds_names() = 0;
  // The set of linear CTA id `cta`; std::out_of_range outside the grid.
  virtual const CtaAccessSet& cta(std::uint32_t cta) = 0;
};

// The provider over a Kernel's warp streams; the kernel must outlive it. Same sets as
// compute_access_sets with the same options.
class LazyCtaAccessSets final : public CtaAccessSetProvider {
 public:
  // Throws std::invalid_argument for a bad line size; computes nothing.
  explicit LazyCtaAccessSets(const Kernel& k, const AccessSetOptions& opt = {});
  std::uint32_t line_bytes() const override { return opt_.line_bytes; }
  const std::vector<std::string>& ds_names() override;
  const CtaAccessSet& cta(std::uint32_t cta) override;
  // CTAs whose set has been computed so far.
  std::uint32_t computed() const { return computed_; }

 private:
  const Kernel& kernel_;
  AccessSetOptions opt_;
  std::vector<std::string> names_;                   // filled on first use
  std::vector<std::unique_ptr<CtaAccessSet>> ctas_;  // null until computed
  std::uint32_t computed_ = 0;
};

}  // namespace locsim
