#pragma once
// What a layout probe brings back, and how to read it: for every lane and every slot x[i] of
// a fragment, which element (row, col) of the tile it holds. Host code only.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "01_wmma_basics/ptx_m16n8k16_layout.hpp"

namespace tcu::wmma_basics {

inline constexpr int kWarpLanes = 32;
// Element ids are row * kElementIdStride + col, for every tile of at most 16 columns.
inline constexpr int kElementIdStride = 16;
inline constexpr int kUnusedSlot = -1;       // i >= num_elements of the fragment
inline constexpr int kUndecodableSlot = -2;  // the slot held a value that is no element id

struct FragmentMap {
  int rows = 16, cols = 16;
  int slots_per_lane = 0;
  std::vector<int> slot_element;  // [lane * slots_per_lane + i] = element id or a k*Slot code

  int at(int lane, int i) const { return slot_element[static_cast<std::size_t>(lane) * slots_per_lane + i]; }
  bool valid_element(int id) const { return id >= 0 && id / kElementIdStride < rows && id % kElementIdStride < cols; }
};

struct FragmentMapSummary {
  int min_slots_used = 0, max_slots_used = 0;  // slots per lane that hold an element
  int undecodable_slots = 0;                   // slots holding something that is no element id
  int uncovered_elements = 0;                  // elements no lane holds
  int min_lanes_per_element = 0, max_lanes_per_element = 0;
  int max_distinct_per_lane = 0;               // different elements one lane holds (slots may repeat)
  // The check: every element reaches at least one lane. (A slot holding something that is no
  // element id is reported, not failed: what a slot holds is unspecified.)
  bool covers_every_element() const { return uncovered_elements == 0; }
};

// How many distinct lanes hold each element (row-major rows × cols).
inline std::vector<int> lanes_per_element(const FragmentMap& m) {
  std::vector<int> count(static_cast<std::size_t>(m.rows) * m.cols, 0);
  for (int lane = 0; lane < kWarpLanes; ++lane) {
    std::vector<bool> seen(count.size(), false);
    for (int i = 0; i < m.slots_per_lane; ++i) {
      const int id = m.at(lane, i);
      if (!m.valid_element(id)) continue;
      const std::size_t e = static_cast<std::size_t>(id / kElementIdStride) * m.cols + id % kElementIdStride;
      if (!seen[e]) ++count[e];
      seen[e] = true;
    }
  }
  return count;
}

inline FragmentMapSummary summarize(const FragmentMap& m) {
  FragmentMapSummary s;
  s.min_slots_used = m.slots_per_lane;
  for (int lane = 0; lane < kWarpLanes; ++lane) {
    int used = 0;
    std::vector<int> ids;
    for (int i = 0; i < m.slots_per_lane; ++i) {
      const int id = m.at(lane, i);
      if (m.valid_element(id)) {
        ++used;
        if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
      } else if (id != kUnusedSlot) {
        ++s.undecodable_slots;
      }
    }
    s.max_distinct_per_lane = std::max(s.max_distinct_per_lane, static_cast<int>(ids.size()));
    s.min_slots_used = std::min(s.min_slots_used, used);
    s.max_slots_used = std::max(s.max_slots_used, used);
  }
  const std::vector<int> lanes = lanes_per_element(m);
  s.min_lanes_per_element = *std::min_element(lanes.begin(), lanes.end());
  s.max_lanes_per_element = *std::max_element(lanes.begin(), lanes.end());
  s.uncovered_elements = static_cast<int>(std::count(lanes.begin(), lanes.end(), 0));
  return s;
}

// A rows × cols grid: each cell the lowest lane holding that element ("--" when none), with
// a '*' marking elements held by more lanes than the least-shared one (none when uniform).
inline std::string render_owner_grid(const FragmentMap& m, const std::string& indent = "    ") {
  std::vector<int> owner(static_cast<std::size_t>(m.rows) * m.cols, -1);
  for (int lane = kWarpLanes - 1; lane >= 0; --lane)
    for (int i = 0; i < m.slots_per_lane; ++i) {
      const int id = m.at(lane, i);
      if (m.valid_element(id))
        owner[static_cast<std::size_t>(id / kElementIdStride) * m.cols + id % kElementIdStride] = lane;
    }
  const std::vector<int> lanes = lanes_per_element(m);
  const int fewest = *std::min_element(lanes.begin(), lanes.end());
  std::string out = indent + "     ";
  char cell[16];
  for (int c = 0; c < m.cols; ++c) {
    std::snprintf(cell, sizeof cell, "%2d ", c);  // the width of a cell below
    out += cell;
  }
  out += "  (column)\n";
  for (int r = 0; r < m.rows; ++r) {
    std::snprintf(cell, sizeof cell, "%3d: ", r);
    out += indent + cell;
    for (int c = 0; c < m.cols; ++c) {
      const std::size_t e = static_cast<std::size_t>(r) * m.cols + c;
      if (owner[e] < 0)
        std::snprintf(cell, sizeof cell, " --");
      else
        std::snprintf(cell, sizeof cell, "%2d%c", owner[e], lanes[e] > fewest ? '*' : ' ');
      out += cell;
    }
    out += "\n";
  }
  return out;
}

// The documented PTX m16n8k16 layout of one operand, as a FragmentMap.
inline FragmentMap documented_ptx_map(PtxOperand op) {
  FragmentMap m;
  m.rows = ptx_rows(op);
  m.cols = ptx_cols(op);
  m.slots_per_lane = ptx_regs_per_lane(op);
  m.slot_element.resize(static_cast<std::size_t>(kWarpLanes) * m.slots_per_lane);
  for (int lane = 0; lane < kWarpLanes; ++lane)
    for (int i = 0; i < m.slots_per_lane; ++i) {
      const RowCol rc = ptx_position(op, lane, i);
      m.slot_element[static_cast<std::size_t>(lane) * m.slots_per_lane + i] = rc.row * kElementIdStride + rc.col;
    }
  return m;
}

// Slots where two maps of the same shape disagree (all of them when the shapes differ).
inline int count_differences(const FragmentMap& x, const FragmentMap& y) {
  if (x.rows != y.rows || x.cols != y.cols || x.slots_per_lane != y.slots_per_lane ||
      x.slot_element.size() != y.slot_element.size())
    return static_cast<int>(std::max(x.slot_element.size(), y.slot_element.size()));
  int diff = 0;
  for (std::size_t i = 0; i < x.slot_element.size(); ++i) diff += (x.slot_element[i] != y.slot_element[i]);
  return diff;
}

// Do slots 0..n-1 of every lane of `wmma` hold what the documented PTX layout puts in
// registers 0..n-1? (A curiosity of one GPU's WMMA implementation, never a promise.)
inline bool prefix_matches_ptx(const FragmentMap& wmma, PtxOperand op) {
  const FragmentMap doc = documented_ptx_map(op);
  if (wmma.slots_per_lane < doc.slots_per_lane) return false;
  for (int lane = 0; lane < kWarpLanes; ++lane)
    for (int i = 0; i < doc.slots_per_lane; ++i)
      if (wmma.at(lane, i) != doc.at(lane, i)) return false;
  return true;
}

}  // namespace tcu::wmma_basics
