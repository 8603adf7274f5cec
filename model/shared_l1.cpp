#include "model/shared_l1.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "model/tag_array.h"

namespace locsim {

namespace {
struct OrgName {
  L1Organization org;
  const char* name;
};
constexpr OrgName kOrgNames[] = {{L1Organization::Private, "private"},
                                 {L1Organization::Shared, "shared"},
                                 {L1Organization::SharedChunk, "shared-chunk"},
                                 {L1Organization::SharedPlusPlus, "shared++"},
                                 {L1Organization::DynEB, "dyneb"},
                                 {L1Organization::DynAMAT, "dynamat"},
                                 {L1Organization::Ideal, "ideal"}};

unsigned ceil_log2(std::uint64_t v) {
  return v <= 1 ? 0u : log2_floor(v - 1) + 1;
}
}  // namespace

const char* to_string(L1Organization o) {
  for (const OrgName& n : kOrgNames)
    if (n.org == o) return n.name;
  return "?";
}

L1Organization parse_l1_organization(const std::string& s) {
  for (const OrgName& n : kOrgNames)
    if (s == n.name) return n.org;
  throw std::invalid_argument("unknown L1 organization '" + s +
                              "' (private|shared|shared-chunk|shared++|dyneb|dynamat|ideal)");
}

const char* to_string(HomeFold f) {
  return f == HomeFold::Mod ? "mod" : "tag-lsb-fold";
}

HomeFold parse_home_fold(const std::string& s) {
  if (s == "mod") return HomeFold::Mod;
  if (s == "tag-lsb-fold") return HomeFold::TagLsbFold;
  throw std::invalid_argument("unknown shared-L1 home mapping '" + s + "' (mod|tag-lsb-fold)");
}

// ---------------------------------------------------------------------------------------------
HomeMap::HomeMap(std::uint32_t cores, std::uint32_t line_bytes, std::uint32_t sets, HomeFold fold)
    : cores_(cores), fold_(fold) {
  if (cores == 0) throw std::invalid_argument("shared L1: core count must be >= 1 (got 0)");
  if (!is_pow2(line_bytes))
    throw std::invalid_argument("shared L1: line size must be a power of two (got " +
                                std::to_string(line_bytes) + ")");
  if (!is_pow2(sets))
    throw std::invalid_argument("shared L1: set count must be a power of two (got " +
                                std::to_string(sets) + ")");
  line_shift_ = log2_floor(line_bytes);
  tag_shift_ = line_shift_ + log2_floor(sets);
  set_mask_ = Addr{sets} - 1;
  core_bits_mask_ = (Addr{1} << ceil_log2(cores)) - 1;
}

std::uint32_t HomeMap::home(Addr a) const {
  const Addr tag = a >> tag_shift_;  // R1.3: core bits = LSBs of the tag
  const Addr bits = fold_ == HomeFold::Mod ? tag : (tag & core_bits_mask_);
  return static_cast<std::uint32_t>(bits % cores_);
}

// ---------------------------------------------------------------------------------------------
ReplicationOracle::ReplicationOracle(unsigned sectors_per_line) {
  if (sectors_per_line == 0 || sectors_per_line > 32)
    throw std::invalid_argument("replication oracle: sectors per line must be in [1, 32] (got " +
                                std::to_string(sectors_per_line) + ")");
  useful_.assign(sectors_per_line + 1, 0);
}

void ReplicationOracle::on_miss(bool line_valid_elsewhere) {
  ++misses_;
  replicated_ += line_valid_elsewhere;
}

double ReplicationOracle::ratio() const {
  return misses_ ? static_cast<double>(replicated_) / static_cast<double>(misses_) : 0.0;
}

bool ReplicationOracle::held_elsewhere(const std::vector<const TagArray*>& l1s, std::size_t self,
                                       Addr a) {
  for (std::size_t i = 0; i < l1s.size(); ++i) {
    if (i == self || !l1s[i]) continue;
    const int w = l1s[i]->find(a);
    if (w >= 0 && l1s[i]->line(l1s[i]->set_index(a), w).valid_sectors) return true;
  }
  return false;
}

void ReplicationOracle::add_line_copies(std::uint32_t copies) {
  if (!copies) return;
  ++replica_lines_;
  replica_copies_ += copies;
}

void ReplicationOracle::add_replica_sample(const std::vector<std::uint32_t>& copies_per_line) {
  for (std::uint32_t c : copies_per_line) add_line_copies(c);
}

void ReplicationOracle::sample_replicas(const std::vector<const TagArray*>& l1s) {
  std::unordered_map<Addr, std::uint32_t> copies;
  for (const TagArray* t : l1s) {
    if (!t) continue;
    const CacheGeometry& g = t->geometry();
    for (std::uint32_t s = 0; s < g.sets; ++s)
      for (std::uint32_t w = 0; w < g.ways; ++w) {
        const TagLine& l = t->line(s, static_cast<int>(w));
        if (l.valid && l.valid_sectors) ++copies[l.line_addr];
      }
  }
  for (const auto& kv : copies) add_line_copies(kv.second);
}

double ReplicationOracle::mean_replicas() const {
  return replica_lines_ ? static_cast<double>(replica_copies_) / static_cast<double>(replica_lines_)
                        : 0.0;
}

void ReplicationOracle::record_remote_request(std::uint32_t sector_mask) {
  const unsigned k = static_cast<unsigned>(__builtin_popcount(sector_mask));
  if (k == 0) return;
  useful_[std::min<std::size_t>(k, useful_.size() - 1)]++;
}

void ReplicationOracle::clear() {
  misses_ = replicated_ = replica_lines_ = replica_copies_ = 0;
  std::fill(useful_.begin(), useful_.end(), 0);
}

}  // namespace locsim
