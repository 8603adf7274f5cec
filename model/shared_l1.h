// Shared L1 caches in GPUs (seed 002, Ibrahim et al., PACT 2020): the pure algorithms.
//  - L1Organization: the evaluated organizations (§3, §4, §2.2).
//  - HomeMap: home core of a line from the tag's core bits (§3.1, spec R1.3/I-1) and the set
//    parity DynEB samples with (§4.1, R5.2).
//  - min_h_l2_goes_to_l2: Optimization II, Min(H, L2) (§3.3, R4.1/I-4).
//  - ReplicationOracle: replication ratio (§2.1, Fig. 1), replicas (Fig. 12) and useful bytes per
//    remote line (Fig. 6) (spec M8).
// Nothing here knows about timing or SystemC; the TLM shared-L1 port calls it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/types.h"

namespace locsim {

class TagArray;

// Private = baseline; Shared = M1+M2; SharedChunk = +Chunk (§3.3); SharedPlusPlus = +Min(H, L2);
// DynEB / DynAMAT = per-core dynamic selection (§4, with L1MRpr); Ideal = the hypothetical
// shared L1 with zero-cost inter-core communication (§2.2, R8.4).
enum class L1Organization { Private, Shared, SharedChunk, SharedPlusPlus, DynEB, DynAMAT, Ideal };

// "private", "shared", "shared-chunk", "shared++", "dyneb", "dynamat", "ideal".
const char* to_string(L1Organization o);
// Inverse of to_string; throws std::invalid_argument naming the value and the accepted names.
L1Organization parse_l1_organization(const std::string& s);

// Per-core dynamic selection between private and shared (§4).
inline bool is_dynamic(L1Organization o) {
  return o == L1Organization::DynEB || o == L1Organization::DynAMAT;
}
// Remote replies carry only the requested sectors (§3.3 Chunk; DynEB is built on it, R5.2).
inline bool chunks_remote_replies(L1Organization o) {
  return o == L1Organization::SharedChunk || o == L1Organization::SharedPlusPlus || is_dynamic(o);
}
// Remote reads may go straight to L2 when it is fewer hops away (§3.3 Min(H, L2)). Only
// meaningful on a topology with hop distances (mesh), R7.3.
inline bool uses_min_h_l2(L1Organization o) {
  return o == L1Organization::SharedPlusPlus || is_dynamic(o);
}

// How the core bits become a home core when N is not a power of two (spec I-1).
enum class HomeFold {
  Mod,        // tag mod N (default; equals the paper's rule for power-of-two N)
  TagLsbFold  // (tag & (2^ceil(log2 N) - 1)) mod N: cores 0.. get the unmapped values twice
};
const char* to_string(HomeFold f);               // "mod", "tag-lsb-fold"
HomeFold parse_home_fold(const std::string& s);  // throws std::invalid_argument naming the value

// §3.1: home core = least significant ceil(log2 N) bits of the tag (the address above the
// offset and set bits); set indexing is unchanged (R1.4). §4.1: the LSB of the set index picks
// the DynEB sampling group (even -> private, odd -> shared).
class HomeMap {
 public:
  // Throws std::invalid_argument unless cores >= 1 and line_bytes, sets are powers of two.
  HomeMap(std::uint32_t cores, std::uint32_t line_bytes, std::uint32_t sets,
          HomeFold fold = HomeFold::Mod);

  std::uint32_t cores() const { return cores_; }
  HomeFold fold() const { return fold_; }
  // Bit position where the tag starts: log2(line) + log2(sets) (12 for 16 KB/4-way/128 B).
  unsigned tag_shift() const { return tag_shift_; }

  std::uint32_t home(Addr a) const;
  std::uint32_t set_index(Addr a) const {
    return static_cast<std::uint32_t>((a >> line_shift_) & set_mask_);
  }
  // 0 = even set (private group), 1 = odd set (shared group) (R5.2).
  unsigned set_parity(Addr a) const { return set_index(a) & 1u; }

 private:
  std::uint32_t cores_;
  HomeFold fold_;
  unsigned line_shift_;
  unsigned tag_shift_;
  Addr set_mask_;
  Addr core_bits_mask_;  // 2^ceil(log2 N) - 1
};

// §3.3 Min(H, L2): a remote read goes directly to the L2 slice iff that slice is strictly fewer
// hops away than the home core (tie -> home, I-4).
inline bool min_h_l2_goes_to_l2(std::uint32_t hops_to_home, std::uint32_t hops_to_l2) {
  return hops_to_l2 < hops_to_home;
}

// Bookkeeping of spec M8 (R8.1-R8.3).
class ReplicationOracle {
 public:
  // sectors_per_line: buckets of the useful-bytes histogram (128 B / 32 B = 4, I-3).
  explicit ReplicationOracle(unsigned sectors_per_line = 4);

  // --- R8.1 replication ratio (§2.1): misses whose line is valid in another L1 at miss time.
  void on_miss(bool line_valid_elsewhere);
  std::uint64_t misses() const { return misses_; }
  std::uint64_t replicated_misses() const { return replicated_; }
  double ratio() const;  // 0 without misses
  // True iff an L1 other than l1s[self] holds a valid copy (valid tag with >= 1 valid sector)
  // of the line of `a`. Null entries are skipped.
  static bool held_elsewhere(const std::vector<const TagArray*>& l1s, std::size_t self, Addr a);

  // --- R8.2 replicas (Fig. 12): mean number of L1s holding a copy, over lines held by >= 1 L1,
  // accumulated over samples.
  // One line held by `copies` L1s (0 is ignored).
  void add_line_copies(std::uint32_t copies);
  // A whole sample: copy counts per line (zeros ignored).
  void add_replica_sample(const std::vector<std::uint32_t>& copies_per_line);
  // A sample taken from the L1 tag arrays themselves (null entries skipped).
  void sample_replicas(const std::vector<const TagArray*>& l1s);
  std::uint64_t replica_lines() const { return replica_lines_; }
  std::uint64_t replica_copies() const { return replica_copies_; }
  double mean_replicas() const;  // 0 without samples

  // --- R8.3 useful bytes (Fig. 6): per remote 128 B line access, how many 32 B sectors were
  // requested. Bucket k (1..sectors_per_line) counts accesses touching k sectors; an empty mask
  // is ignored.
  void record_remote_request(std::uint32_t sector_mask);
  unsigned sectors_per_line() const { return static_cast<unsigned>(useful_.size() - 1); }
  // Index k = accesses touching k sectors; index 0 is always 0.
  const std::vector<std::uint64_t>& useful_histogram() const { return useful_; }

  void clear();

 private:
  std::uint64_t misses_ = 0, replicated_ = 0;
  std::uint64_t replica_lines_ = 0, replica_copies_ = 0;
  std::vector<std::uint64_t> useful_;
};

}  // namespace locsim
