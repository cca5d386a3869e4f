#include "cryptobench/stats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace cb {

double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) throw std::invalid_argument("quantile of no values");
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return quantile(values, 0.5);
}

Summary summarise(const std::vector<Sample>& samples, uint64_t bytes_per_op) {
  Summary s;
  s.n = samples.size();
  if (samples.empty()) return s;
  std::vector<double> ns, ticks;
  for (const auto& x : samples) {
    const double it = static_cast<double>(x.iterations);
    ns.push_back(static_cast<double>(x.ns) / it);
    ticks.push_back(static_cast<double>(x.ticks) / it);
  }
  std::sort(ns.begin(), ns.end());
  s.median_ns = quantile(ns, 0.5);
  s.q1_ns = quantile(ns, 0.25);
  s.q3_ns = quantile(ns, 0.75);
  s.min_ns = ns.front();
  s.max_ns = ns.back();
  std::vector<double> dev;
  for (double v : ns) dev.push_back(std::fabs(v - s.median_ns));
  s.mad_ns = median(dev);
  if (s.median_ns > 0) {
    s.ops_per_s = 1e9 / s.median_ns;
    s.bytes_per_s = static_cast<double>(bytes_per_op) * s.ops_per_s;
  }
  s.median_ticks = median(ticks);
  if (bytes_per_op) s.ticks_per_byte = s.median_ticks / static_cast<double>(bytes_per_op);
  return s;
}

}  // namespace cb
