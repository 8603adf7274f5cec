#include "model/workload/access_sets.h"

#include <algorithm>
#include <stdexcept>

#include "model/workload/stream_walk.h"

namespace locsim {

namespace {

// Address -> data-structure index by range, with a one-entry cache (lanes of a warp and successive
// instructions mostly stay in one structure).
class DsLookup {
 public:
  explicit DsLookup(const std::vector<DataStructure>& data) : unknown_(data.size()) {
    for (std::size_t i = 0; i < data.size(); ++i)
      if (data[i].bytes) ranges_.push_back({data[i].base, data[i].base + data[i].bytes, i});
    std::sort(ranges_.begin(), ranges_.end(),
              [](const Range& x, const Range& y) { return x.base < y.base; });
  }
  std::size_t operator()(Addr a) {
    if (a >= last_.base && a < last_.end) return last_.index;
    auto it = std::upper_bound(ranges_.begin(), ranges_.end(), a,
                               [](Addr v, const Range& r) { return v < r.base; });
    if (it == ranges_.begin()) return unknown_;
    --it;
    if (a >= it->end) return unknown_;
    last_ = *it;
    return it->index;
  }

 private:
  struct Range {
    Addr base = 0, end = 0;
    std::size_t index = 0;
  };
  std::vector<Range> ranges_;
  Range last_;
  std::size_t unknown_;
};

void sort_unique(std::vector<Addr>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  v.shrink_to_fit();
}

}  // namespace

std::uint64_t CtaAccessSet::lines() const {
  std::uint64_t n = 0;
  for (const DsAccess& d : ds) n += d.lines.size();
  return n;
}
std::uint64_t CtaAccessSet::read_bytes() const {
  std::uint64_t n = 0;
  for (const DsAccess& d : ds) n += d.read_bytes;
  return n;
}
std::uint64_t CtaAccessSet::write_bytes() const {
  std::uint64_t n = 0;
  for (const DsAccess& d : ds) n += d.write_bytes;
  return n;
}

std::uint64_t sorted_intersection_size(const std::vector<Addr>& a, const std::vector<Addr>& b) {
  std::uint64_t n = 0;
  auto i = a.begin(), j = b.begin();
  while (i != a.end() && j != b.end()) {
    if (*i < *j) {
      ++i;
    } else if (*j < *i) {
      ++j;
    } else {
      ++n;
      ++i;
      ++j;
    }
  }
  return n;
}

std::uint64_t KernelAccessSets::shared_lines(std::uint32_t a, std::uint32_t b,
                                             std::size_t ds) const {
  return sorted_intersection_size(ctas.at(a).ds.at(ds).lines, ctas.at(b).ds.at(ds).lines);
}

std::uint64_t KernelAccessSets::shared_lines(std::uint32_t a, std::uint32_t b) const {
  std::uint64_t n = 0;
  for (std::size_t d = 0; d < ds_names.size(); ++d) n += shared_lines(a, b, d);
  return n;
}

std::uint64_t KernelAccessSets::footprint_lines(std::size_t ds) const {
  std::vector<Addr> all;
  for (const CtaAccessSet& c : ctas)
    all.insert(all.end(), c.ds.at(ds).lines.begin(), c.ds.at(ds).lines.end());
  std::sort(all.begin(), all.end());
  return static_cast<std::uint64_t>(std::unique(all.begin(), all.end()) - all.begin());
}

std::uint64_t KernelAccessSets::footprint_lines() const {
  // A line shared by two adjacent structures (unaligned bases) is listed under both: count once.
  std::vector<Addr> all;
  all.reserve(total_cta_lines());
  for (const CtaAccessSet& c : ctas)
    for (const DsAccess& d : c.ds) all.insert(all.end(), d.lines.begin(), d.lines.end());
  std::sort(all.begin(), all.end());
  return static_cast<std::uint64_t>(std::unique(all.begin(), all.end()) - all.begin());
}

std::uint64_t KernelAccessSets::total_cta_lines() const {
  std::uint64_t n = 0;
  for (const CtaAccessSet& c : ctas) n += c.lines();
  return n;
}
std::uint64_t KernelAccessSets::total_read_bytes() const {
  std::uint64_t n = 0;
  for (const CtaAccessSet& c : ctas) n += c.read_bytes();
  return n;
}
std::uint64_t KernelAccessSets::total_write_bytes() const {
  std::uint64_t n = 0;
  for (const CtaAccessSet& c : ctas) n += c.write_bytes();
  return n;
}

std::size_t KernelAccessSets::memory_bytes() const {
  std::size_t n = ctas.capacity() * sizeof(CtaAccessSet);
  for (const CtaAccessSet& c : ctas) {
    n += c.ds.capacity() * sizeof(DsAccess);
    for (const DsAccess& d : c.ds) n += d.lines.capacity() * sizeof(Addr);
  }
  return n;
}

namespace {

void check_line_bytes(const AccessSetOptions& opt) {
  if (!is_pow2(opt.line_bytes))
    throw std::invalid_argument("access sets: line size " + std::to_string(opt.line_bytes) +
                                " is not a power of two");
}

std::vector<std::string> ds_names_of(const Kernel& k) {
  std::vector<std::string> names;
  for (const DataStructure& d : k.data()) names.push_back(d.name);
  names.push_back("unknown");
  return names;
}

// Runs the warp streams of one CTA. `last` (one entry per structure) is scratch space.
void compute_cta(const Kernel& k, std::uint32_t cta, std::uint32_t line_bytes, DsLookup& lookup,
                 std::vector<Addr>& last, CtaAccessSet& set) {
  const std::size_t nds = last.size();
  const Addr mask = ~Addr{line_bytes - 1};
  set.ds.resize(nds);
  std::fill(last.begin(), last.end(), ~Addr{0});
  for_each_cta_inst(k, cta, [&](std::uint32_t, const WarpInst& in) {
    if (in.op != WarpOp::Load && in.op != WarpOp::Store && in.op != WarpOp::Atomic) return;
    const bool reads = in.op != WarpOp::Store, writes = in.op != WarpOp::Load;
    for (unsigned l = 0; l < 32; ++l) {
      if (!((in.active_mask >> l) & 1u)) continue;
      const Addr a = in.addr[l];
      const std::size_t d = lookup(a);
      DsAccess& acc = set.ds[d];
      if (reads) acc.read_bytes += in.size;
      if (writes) acc.write_bytes += in.size;
      const Addr first = a & mask, end = (a + std::max<Addr>(in.size, 1) - 1) & mask;
      for (Addr line = first;; line += line_bytes) {
        // Consecutive lanes mostly hit the line just recorded: skip the duplicate early.
        if (line != last[d]) {
          acc.lines.push_back(line);
          last[d] = line;
        }
        if (line == end) break;
      }
    }
  });
  for (DsAccess& d : set.ds) sort_unique(d.lines);
}

}  // namespace

KernelAccessSets compute_access_sets(const Kernel& k, const AccessSetOptions& opt) {
  check_line_bytes(opt);
  KernelAccessSets out;
  out.line_bytes = opt.line_bytes;
  out.ds_names = ds_names_of(k);
  DsLookup lookup(k.data());
  out.ctas.resize(k.num_ctas());
  std::vector<Addr> last(out.ds_names.size());
  for (std::uint32_t cta = 0; cta < k.num_ctas(); ++cta)
    compute_cta(k, cta, opt.line_bytes, lookup, last, out.ctas[cta]);
  return out;
}

LazyCtaAccessSets::LazyCtaAccessSets(const Kernel& k, const AccessSetOptions& opt)
    : kernel_(k), opt_(opt) {
  check_line_bytes(opt);
}

const std::vector<std::string>& LazyCtaAccessSets::ds_names() {
  if (names_.empty()) names_ = ds_names_of(kernel_);
  return names_;
}

const CtaAccessSet& LazyCtaAccessSets::cta(std::uint32_t cta) {
  const std::uint32_t n = kernel_.num_ctas();
  if (cta >= n)
    throw std::out_of_range("access sets: CTA " + std::to_string(cta) + " of a grid of " +
                            std::to_string(n));
  if (ctas_.empty()) ctas_.resize(n);
  if (!ctas_[cta]) {
    DsLookup lookup(kernel_.data());
    std::vector<Addr> last(ds_names().size());
    auto set = std::make_unique<CtaAccessSet>();
    compute_cta(kernel_, cta, opt_.line_bytes, lookup, last, *set);
    ctas_[cta] = std::move(set);
    ++computed_;
  }
  return *ctas_[cta];
}

}  // namespace locsim
