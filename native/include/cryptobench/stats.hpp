// Per-case summary statistics over samples (per-operation figures). The Python side recomputes
// these and adds bootstrap intervals and slope fits; docs/methodology.md has every formula.
#pragma once

#include <cstdint>
#include <vector>

#include "cryptobench/engine.hpp"

namespace cb {

// Quantile with linear interpolation between order statistics (Hyndman & Fan type 7, the
// default of R and numpy). `sorted` must be sorted ascending and non-empty.
double quantile(const std::vector<double>& sorted, double q);
double median(std::vector<double> values);

struct Summary {
  size_t n = 0;
  double median_ns = 0, q1_ns = 0, q3_ns = 0, min_ns = 0, max_ns = 0;
  double mad_ns = 0;  // median absolute deviation from the median, unscaled
  double bytes_per_s = 0, ops_per_s = 0;
  double median_ticks = 0, ticks_per_byte = 0;
};

Summary summarise(const std::vector<Sample>& samples, uint64_t bytes_per_op);

}  // namespace cb
