#include "model/cache_params.h"

#include <exception>

namespace locsim {

void declare_cache_geometry_params(ParamRegistry& p, const std::string& prefix,
                                   const CacheGeometry& d, std::uint64_t size_default,
                                   const std::string& what) {
  using T = ParamType;
  p.declare(prefix + ".size", T::Bytes, bytes_text(size_default), "bytes", what);
  p.declare(prefix + ".line", T::Bytes, bytes_text(d.line_bytes), "bytes",
            prefix == "l1d" ? "L1 line size" : "L2 line size");
  p.declare(prefix + ".sector", T::Bytes, bytes_text(d.sector_bytes), "bytes",
            prefix == "l1d"
                ? "L1 sector size (== line: not sectored; 32: fetch only requested sectors)"
                : "L2 sector size");
  p.declare(prefix + ".ways", T::UInt, std::to_string(d.ways), "ways",
            prefix == "l1d" ? "L1 associativity" : "L2 associativity");
  p.declare(prefix + ".indexing", T::Enum, set_indexing_name(d.indexing), "",
            std::string(prefix == "l1d" ? "L1" : "L2") +
                " set index function: linear (line address modulo sets), xor (upper line bits "
                "folded onto the index), fermi-hash (GTX480's L1 hash, Nugteren et al. HPCA 2014; "
                "32 or 64 sets of 128 B lines)",
            {"linear", "xor", "fermi-hash"});
}

namespace {
// "l1d.ways=4 (platforms/fermi.json)": a derived value's inputs and where each came from.
std::string inputs(const ParamRegistry& p, const std::string& prefix) {
  std::string out;
  for (const char* k : {".size", ".ways", ".line", ".sector"}) {
    const ParamInfo& i = p.info(prefix + k);
    out += (out.empty() ? "" : ", ") + i.name + "=" + i.value_text + " (" + i.source + ")";
  }
  return out;
}
}  // namespace

CacheGeometry cache_geometry_from_params(const ParamRegistry& p, const std::string& prefix,
                                         std::uint64_t bytes) {
  CacheGeometry g;
  g.line_bytes = p.get_bytes_u32(prefix + ".line");
  g.sector_bytes = p.get_bytes_u32(prefix + ".sector");
  g.ways = p.get_u32(prefix + ".ways", 1, 1024);
  g.indexing = set_indexing_from_name(p.get_string(prefix + ".indexing"));
  if (g.line_bytes == 0 || bytes % (std::uint64_t{g.line_bytes} * g.ways) != 0)
    throw ConfigError("key '" + prefix + ".size': " + std::to_string(bytes) +
                      " bytes is not a whole number of sets of " + std::to_string(g.ways) +
                      " ways x " + std::to_string(g.line_bytes) + " B lines; " + inputs(p, prefix));
  const std::uint64_t sets = bytes / (std::uint64_t{g.line_bytes} * g.ways);
  // Checked before narrowing: 2^41 B used to become a 512 B cache.
  if (sets > 0xffffffffu)
    throw ConfigError("key '" + prefix + ".size': " + std::to_string(bytes) + " bytes make " +
                      std::to_string(sets) + " sets, more than a cache can have (2^32 - 1)");
  g.sets = static_cast<std::uint32_t>(sets);
  try {
    g.validate();
  } catch (const std::exception& e) {
    throw ConfigError("keys '" + prefix + ".*': " + e.what() + "; " + inputs(p, prefix));
  }
  return g;
}

}  // namespace locsim
