// The lesson, section by section. Each section runs kernels through the launch functions of
// wmma_basics.cuh, checks every result against the FP64 CPU reference, adds one row per
// check to the report and explains, on rep.out, what the reader is looking at.
#include "01_wmma_basics/lesson.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "01_wmma_basics/alignment_demo.hpp"
#include "01_wmma_basics/fragment_map.hpp"
#include "01_wmma_basics/layout_probes.hpp"
#include "01_wmma_basics/product_check.hpp"
#include "01_wmma_basics/wmma_basics.cuh"

namespace tcu::wmma_basics {

LessonReport::LessonReport(std::ostream& o)
    : out(o),
      table_({{"section"},
              {"check"},
              {"shape"},
              {"types"},
              {"max_abs_err", "%.3g"},
              {"max_rel_err", "%.3g"},
              {"result"},
              {"note"}}) {}

void LessonReport::add_verified(const std::string& section, const std::string& check, const std::string& shape,
                                const std::string& types, const VerifyResult& r, const Tolerance& tol,
                                bool verified) {
  if (!verified) {
    add_note(section, check, shape, types, "UNVERIFIED", "--no-verify");
    return;
  }
  table_.add_row({section, check, shape, types, r.max_abs_err, r.max_rel_err, std::string(r.pass ? "PASS" : "FAIL"),
                  r.pass ? tol.rationale : tol.rationale + "; " + r.summary()});
  if (!r.pass) ++failures_;
}

void LessonReport::add_verdict(const std::string& section, const std::string& check, const std::string& shape,
                               const std::string& types, bool pass, const std::string& note) {
  table_.add_row(
      {section, check, shape, types, std::monostate{}, std::monostate{}, std::string(pass ? "PASS" : "FAIL"), note});
  if (!pass) ++failures_;
}

void LessonReport::add_note(const std::string& section, const std::string& check, const std::string& shape,
                            const std::string& types, const std::string& result, const std::string& note) {
  table_.add_row({section, check, shape, types, std::monostate{}, std::monostate{}, result, note});
}

namespace {

constexpr const char* kNeedsSm80 = "needs sm_80 or newer (and a binary built for it)";
constexpr const char* kF16F32 = "f16*f16->f32";
constexpr const char* kF16F16 = "f16*f16->f16";

std::string shape_name(MmaShape s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}
const char* layout_name(Layout l) { return l == Layout::row_major ? "row" : "col"; }

void heading(std::ostream& out, const std::string& title) { out << "\n== " << title << " ==\n"; }

// One table row for one product, checked with o.seeds input sets (the worst of them is shown).
template <class In, class Out, class Launch, class Adjust>
void product_row(const LessonOptions& o, LessonReport& rep, const std::string& section, const std::string& check,
                 MmaShape s, const std::string& types, const ProductLayout& pl, const Tolerance& tol, Launch&& launch,
                 Adjust&& adjust) {
  VerifyResult total;
  for (int i = 0; i < o.seeds; ++i) {
    const ProductCheck c =
        check_product<In, Out>(s, pl, o.dist, o.seed + static_cast<std::uint64_t>(i), tol, launch, adjust);
    if (c.launch == cudaErrorNotSupported) {
      rep.add_note(section, check, shape_name(s), types, "SKIP", kNeedsSm80);
      return;
    }
    TCU_CUDA_CHECK(c.launch);  // any other refusal would be a bug of the lesson itself
    total = (i == 0) ? c.result : merge(total, c.result);
  }
  rep.add_verified(section, check, shape_name(s), types, total, tol, o.verify);
}

template <class In, class Out, class Launch>
void product_row(const LessonOptions& o, LessonReport& rep, const std::string& section, const std::string& check,
                 MmaShape s, const std::string& types, const ProductLayout& pl, const Tolerance& tol,
                 Launch&& launch) {
  product_row<In, Out>(o, rep, section, check, s, types, pl, tol, std::forward<Launch>(launch),
                       [](ProductReference&) {});
}

const Tolerance& say_tolerance(std::ostream& out, const Tolerance& t) {
  out << "  tolerance: " << t.rationale << "\n";
  return t;
}

void explain_inputs(const LessonOptions& o, std::ostream& out) {
  out << "Every check: " << o.seeds << " input set(s) (--dist " << dist_name(o.dist) << ", seeds " << o.seed << ".."
      << o.seed + static_cast<std::uint64_t>(o.seeds - 1) << "), output poisoned with NaN first, compared with the\n"
      << "FP64 CPU product (tcu::reference_gemm).";
  if (integer_valued(o.dist))
    out << " Integer inputs: every partial sum is an integer below 2048, exact\n"
           "in fp32 and fp16, so the comparison is bit-exact.\n";
  else
    out << " Tolerance: a chain of k roundings (the tensor core's order of\n"
           "addition is undocumented, so no tree is assumed), 2u each, times sum|a*b|.\n";
}

}  // namespace

// ---------------------------------------------------------------------------------------------
void lesson_products(const LessonOptions& o, LessonReport& rep) {
  std::ostream& out = rep.out;
  heading(out, "products: one warp, one 16x16x16 tile");
  out << "WMMA lets the 32 lanes of a warp compute D = A*B + C on a whole tile at once:\n"
         "  fragment<matrix_a, 16,16,16, half, row_major> a;  // A: 16x16, a share of it in every lane\n"
         "  fragment<matrix_b, 16,16,16, half, row_major> b;  // B: 16x16\n"
         "  fragment<accumulator, 16,16,16, float> c;         // C and D: 16x16, fp32 (or half)\n"
         "  fill_fragment(c, 0); load_matrix_sync(a, A, lda); load_matrix_sync(b, B, ldb);\n"
         "  mma_sync(c, a, b, c); store_matrix_sync(D, c, ldd, mem_row_major);\n"
         "All 32 lanes must make every call together (the _sync). fp16 products are exact in fp32; only\n"
         "the additions round — in fp32 or, with a half accumulator, in fp16 (about 2^13 times coarser).\n";
  explain_inputs(o, out);
  const MmaShape s = kShape16x16x16;
  product_row<__half, float>(
      o, rep, "products", "fp32 accumulator", s, kF16F32, {},
      say_tolerance(out, product_tolerance(s.k, NumType::fp16, NumType::fp32, NumType::fp32, o.dist)),
      [](auto a, auto b, auto d) { return mma_16x16x16_f16_f32acc(a, b, d); });
  product_row<__half, __half>(
      o, rep, "products", "fp16 accumulator", s, kF16F16, {},
      say_tolerance(out, product_tolerance(s.k, NumType::fp16, NumType::fp16, NumType::fp16, o.dist)),
      [](auto a, auto b, auto d) { return mma_16x16x16_f16_f16acc(a, b, d); });
}

// ---------------------------------------------------------------------------------------------
void lesson_shapes(const LessonOptions& o, LessonReport& rep) {
  std::ostream& out = rep.out;
  heading(out, "shapes: 32x8x16, 8x32x16, and the sm_80 types bf16 and tf32");
  out << "fp16 WMMA has three shapes, all 256 outputs (8 per lane): 16x16x16, 32x8x16 (A 32x16, B 16x8)\n"
         "and 8x32x16 (A 8x16, B 16x32). Ampere added bf16 (16x16x16) and tf32 (16x16x8: A 16x8, B 8x16;\n"
         "fp32 in memory, rounded to tf32 in the fragment with __float_to_tf32). Their kernels compile for\n"
         "sm_75 too — the body is under #if __CUDA_ARCH__ >= 800 — and the launch functions answer\n"
         "cudaErrorNotSupported where the GPU runs an image without it.\n";
  const Tolerance f32 = product_tolerance(16, NumType::fp16, NumType::fp32, NumType::fp32, o.dist);
  product_row<__half, float>(o, rep, "shapes", "32x8x16", kShape32x8x16, kF16F32, {}, f32,
                             [](auto a, auto b, auto d) { return mma_32x8x16_f16_f32acc(a, b, d); });
  product_row<__half, float>(o, rep, "shapes", "8x32x16", kShape8x32x16, kF16F32, {}, f32,
                             [](auto a, auto b, auto d) { return mma_8x32x16_f16_f32acc(a, b, d); });
  product_row<__nv_bfloat16, float>(o, rep, "shapes", "bf16 (sm_80+)", kShape16x16x16, "bf16*bf16->f32", {},
                                    product_tolerance(16, NumType::bf16, NumType::fp32, NumType::fp32, o.dist),
                                    [](auto a, auto b, auto d) { return mma_16x16x16_bf16_f32acc(a, b, d); });
  product_row<float, float>(
      o, rep, "shapes", "tf32 (sm_80+)", kShape16x16x8, "tf32*tf32->f32", {},
      say_tolerance(out, product_tolerance(8, NumType::tf32, NumType::fp32, NumType::fp32, o.dist)),
      [](auto a, auto b, auto d) { return mma_16x16x8_tf32_f32acc(a, b, d); });
}

// ---------------------------------------------------------------------------------------------
void lesson_layouts(const LessonOptions& o, LessonReport& rep) {
  std::ostream& out = rep.out;
  heading(out, "layouts: row- and column-major operands, storing with mem_col_major");
  out << "An operand's memory layout is part of its fragment type (row_major / col_major); the\n"
         "accumulator's is chosen when storing (mem_row_major / mem_col_major). The same 256 halves read\n"
         "as col_major are the transpose of what row_major reads: a transpose for free, with no copy.\n"
         "Likewise, storing D with mem_col_major writes D^T's row-major image. All 8 combinations:\n";
  const MmaShape s = kShape16x16x16;
  const Tolerance tol = product_tolerance(s.k, NumType::fp16, NumType::fp32, NumType::fp32, o.dist);
  for (Layout la : {Layout::row_major, Layout::col_major})
    for (Layout lb : {Layout::row_major, Layout::col_major})
      for (Layout ld : {Layout::row_major, Layout::col_major}) {
        ProductLayout pl;
        pl.a = la;
        pl.b = lb;
        pl.d = ld;
        const std::string check =
            std::string("A ") + layout_name(la) + ", B " + layout_name(lb) + ", D " + layout_name(ld);
        product_row<__half, float>(o, rep, "layouts", check, s, kF16F32, pl, tol,
                                   [](auto a, auto b, auto d) { return mma_16x16x16_f16_f32acc(a, b, d); });
      }
}

// ---------------------------------------------------------------------------------------------
void lesson_elementwise(const LessonOptions& o, LessonReport& rep) {
  std::ostream& out = rep.out;
  constexpr float kAlpha = 0.5f, kBeta = -4.0f;  // powers of two: scaling adds no rounding
  heading(out, "elementwise: fill_fragment and operations on x[i]");
  out << "A fragment's x[i] may be changed without knowing which element it holds, as long as every\n"
         "slot gets the same treatment: fill_fragment(c, beta), then after mma_sync\n"
         "  for (int i = 0; i < c.num_elements; ++i) c.x[i] = fmaxf(alpha * c.x[i], 0.f);\n"
         "computes D = relu(alpha * (A*B + beta)) here with alpha = "
      << kAlpha << ", beta = " << kBeta
      << ". What is NOT portable: anything\n"
         "that depends on the position (a triangular mask, adding the row index, reading D(0,0) from x[0]).\n"
         "That goes through memory: store_matrix_sync, work on (row, col), load_matrix_sync.\n";
  const MmaShape s = kShape16x16x16;
  auto relu_reference = [](ProductReference& r) {
    for (std::size_t i = 0; i < r.value.size(); ++i) {
      r.value[i] = std::max(double(kAlpha) * (r.value[i] + kBeta), 0.0);
      r.magnitude[i] = std::fabs(kAlpha) * (r.magnitude[i] + std::fabs(kBeta));
    }
  };
  product_row<__half, float>(
      o, rep, "elementwise", "relu(alpha*(A*B + beta))", s, kF16F32, {},
      product_tolerance(s.k, NumType::fp16, NumType::fp32, NumType::fp32, o.dist),
      [&](auto a, auto b, auto d) { return mma_16x16x16_relu_epilogue(a, b, kAlpha, kBeta, d); }, relu_reference);
}

// ---------------------------------------------------------------------------------------------
void lesson_fragment_map(const LessonOptions& /*o*/, LessonReport& rep) {
  std::ostream& out = rep.out;
  heading(out, "fragment_map: which lane holds which element, on this GPU");
  out << "Each probe loads a tile whose element (r, c) is the number 16r + c (exact in fp16) and every\n"
         "lane reports what its x[i] hold. Grids: the lowest lane holding each element; '*' marks\n"
         "elements held by more lanes than the least-shared ones.\n";
  std::vector<FragmentMap> maps;
  for (FragmentKind kind : kAllFragmentKinds) {
    const ProbedMap p = read_wmma_fragment_map(kind);
    TCU_CUDA_CHECK(p.status);
    const FragmentMapSummary s = summarize(p.map);
    const std::string lanes =
        s.min_lanes_per_element == s.max_lanes_per_element
            ? std::to_string(s.min_lanes_per_element)
            : std::to_string(s.min_lanes_per_element) + " to " + std::to_string(s.max_lanes_per_element);
    const std::string note =
        std::to_string(s.max_slots_used) + " x[] slots per lane holding " + std::to_string(s.max_distinct_per_lane) +
        " distinct elements; each element in " + lanes + " lane(s)" +
        (s.undecodable_slots ? "; " + std::to_string(s.undecodable_slots) + " undecodable slots" : "");
    out << "\n" << fragment_kind_name(kind) << ": " << note << "\n" << render_owner_grid(p.map);
    rep.add_verdict("fragment_map", std::string(fragment_kind_name(kind)) + " covers every element", "16x16x16",
                    kind == FragmentKind::accumulator_f32 ? "f32" : "f16", s.covers_every_element(), note);
    maps.push_back(p.map);
  }
  const bool a_same = count_differences(maps[0], maps[1]) == 0;
  const bool b_same = count_differences(maps[2], maps[3]) == 0;
  out << "\nOn this GPU: matrix_a row_major and col_major maps are " << (a_same ? "identical" : "different")
      << "; matrix_b row_major and col_major maps are " << (b_same ? "identical" : "different") << ".\n"
      << "x[0..7] of matrix_a row_major " << (prefix_matches_ptx(maps[0], PtxOperand::a) ? "match" : "do not match")
      << " the documented PTX m16n8k16 A registers a0..a7; x[0..3] of the float accumulator "
      << (prefix_matches_ptx(maps[4], PtxOperand::c) ? "match" : "do not match") << " c0..c3.\n"
      << "Why portable code must not depend on any of this: the CUDA guide calls the mapping\n"
         "unspecified, and it differs between Volta, Turing, Ampere and Hopper (and between fragment\n"
         "kinds, and possibly compiler versions). Code that reads x[i] as element (r, c) is correct on the\n"
         "GPU it was tested on and silently wrong on the next. Portable code moves data between fragment\n"
         "kinds through memory, or uses values that are the same in every slot (fill_fragment, X*1).\n";
  rep.add_note("fragment_map", "matrix_a row vs col major map", "16x16x16", "f16", "INFO",
               a_same ? "identical on this GPU" : "different on this GPU");
}

// ---------------------------------------------------------------------------------------------
void lesson_ptx_mma(const LessonOptions& o, LessonReport& rep) {
  std::ostream& out = rep.out;
  heading(out, "ptx_mma: mma.sync.aligned.m16n8k16, whose layout IS documented");
  out << "Below WMMA sits the PTX instruction mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32:\n"
         "D (16x8) = A (16x16) * B (16x8) + C, operands in registers. Its register layout is part of the\n"
         "PTX ISA (9.7.14.5.8, \"Matrix Fragments for mma.m16n8k16 with floating point type\"):\n"
         "  groupID = lane >> 2, threadID_in_group = lane % 4\n"
         "  A a0..a7: row = groupID (+8 for a2,a3,a6,a7), col = 2*threadID_in_group + (i&1) (+8 for a4..a7)\n"
         "  B b0..b3: row = 2*threadID_in_group + (i&1) (+8 for b2,b3), col = groupID\n"
         "  C c0..c3: row = groupID (+8 for c2,c3),         col = 2*threadID_in_group + (i&1)\n"
         "so code may rely on it: each lane loads its own elements (any layout, any ld, no 32-byte rule)\n"
         "and knows where each result goes. Two instructions make a 16x16 output. Needs sm_80.\n";
  for (int lane : {0, 5}) {
    out << "  lane " << lane << " (groupID " << ptx_group_id(lane) << ", threadID_in_group "
        << ptx_thread_in_group(lane) << "):";
    for (int i = 0; i < kPtxARegsPerLane; ++i) {
      const RowCol rc = ptx_a_position(lane, i);
      out << " a" << i << "=(" << rc.row << "," << rc.col << ")";
    }
    out << "\n";
  }
  bool supported = true;
  for (PtxOperand op : {PtxOperand::a, PtxOperand::b, PtxOperand::c}) {
    const FragmentMap doc = documented_ptx_map(op);
    out << "\ndocumented " << ptx_operand_name(op) << " (lane of each element):\n" << render_owner_grid(doc);
    const std::string check = std::string("observed ") + ptx_operand_name(op) + " layout == documented";
    if (!supported) {
      rep.add_note("ptx_mma", check, "16x8x16", kF16F32, "SKIP", kNeedsSm80);
      continue;
    }
    const ProbedMap seen = read_ptx_observed_map(op);
    if (seen.status == cudaErrorNotSupported) {
      supported = false;
      out << "(observing it needs sm_80; skipped on this GPU)\n";
      rep.add_note("ptx_mma", check, "16x8x16", kF16F32, "SKIP", kNeedsSm80);
      continue;
    }
    TCU_CUDA_CHECK(seen.status);
    const int diff = count_differences(seen.map, doc);
    out << "observed on this GPU: "
        << (diff == 0 ? "identical to the document" : std::to_string(diff) + " slots differ") << "\n";
    if (diff != 0) out << render_owner_grid(seen.map);
    rep.add_verdict("ptx_mma", check, "16x8x16", kF16F32, diff == 0,
                    "observed with the other two operands in their documented layout");
  }
  out << "(Observing one operand needs two you trust: each observation trusts the documented layout of the\n"
         "other two, so a wrong formula for any of the three would show up in at least one of them.)\n";
  const MmaShape s = kShape16x16x16;
  const Tolerance tol = product_tolerance(s.k, NumType::fp16, NumType::fp32, NumType::fp32, o.dist);
  for (Layout la : {Layout::row_major, Layout::col_major})
    for (Layout lb : {Layout::row_major, Layout::col_major}) {
      ProductLayout pl;
      pl.a = la;
      pl.b = lb;
      product_row<__half, float>(
          o, rep, "ptx_mma", std::string("2x m16n8k16, A ") + layout_name(la) + ", B " + layout_name(lb), s, kF16F32,
          pl, tol, [](auto a, auto b, auto d) { return ptx_mma_16x16x16_f16_f32acc(a, b, d); });
    }
}

// ---------------------------------------------------------------------------------------------
namespace {

// The main process's side of the alignment section: the checked wrapper must refuse the tile
// and launch nothing (D stays poisoned).
void refusal_row(LessonReport& rep, const std::string& name, Tile<const __half> a, Tile<const __half> b) {
  constexpr MmaShape s = kShape16x16x16;
  DeviceBuffer<float> d = poisoned_output<float>(static_cast<std::size_t>(s.m) * s.n);
  const std::string why = describe_tile_problem(a, s.m, s.k);
  const cudaError_t err = mma_16x16x16_f16_f32acc(a, b, tile(d.data()));
  TCU_CUDA_CHECK(cudaDeviceSynchronize());
  const bool untouched = still_poisoned(d);
  const bool pass = err == cudaErrorInvalidValue && untouched;
  rep.out << "  " << name << ": " << cudaGetErrorName(err) << (untouched ? ", nothing launched" : ", D WAS WRITTEN")
          << "\n      why: " << (why.empty() ? "(no problem found)" : why) << "\n";
  rep.add_verdict("alignment", "wrapper refuses " + name, shape_name(s), kF16F32, pass,
                  std::string(cudaGetErrorName(err)) + "; " + why);
}

}  // namespace

void lesson_alignment(const LessonOptions& o, LessonReport& rep) {
  std::ostream& out = rep.out;
  heading(out, "alignment: the rules of load_matrix_sync / store_matrix_sync");
  out << "The CUDA guide requires (common/wmma_rules.cuh):\n"
         "  - the pointer is 256-bit (32-byte) aligned;\n"
         "  - ldm, the leading dimension in elements, is a multiple of 8 for half/bf16 and of 4 for float\n"
         "    (a multiple of 16 bytes).\n"
         "Breaking them is undefined behaviour: a misaligned-address fault, which is sticky (the whole CUDA\n"
         "context is lost), or silently wrong data. cudaMalloc returns 256-byte aligned memory; a sub-tile\n"
         "at (row, col) of a row-major matrix is aligned when (row*ld + col)*sizeof(T) is a multiple of 32.\n";
  const MmaShape s = kShape16x16x16;

  ProductLayout padded;
  padded.lda = padded.ldb = padded.ldd = 24;  // 48 bytes for half, 96 for float: both multiples of 16
  product_row<__half, float>(o, rep, "alignment", "legal: padded rows, ld = 24", s, kF16F32, padded,
                             product_tolerance(s.k, NumType::fp16, NumType::fp32, NumType::fp32, o.dist),
                             [](auto a, auto b, auto d) { return mma_16x16x16_f16_f32acc(a, b, d); });

  out << "The checked launch functions refuse what would break the rules (cudaErrorInvalidValue):\n";
  constexpr std::size_t kWide = 24;  // a 32x24 row-major matrix whose sub-tiles we try
  const HostDeviceTile<__half> a = make_input<__half>(32 * kWide, o.dist, o.seed, 0);
  const HostDeviceTile<__half> b = make_input<__half>(256, o.dist, o.seed, 32 * kWide);
  const __half* base = a.device.data();
  const Tile<const __half> b_tile = tile(b.device.data());
  refusal_row(rep, "A + 2 bytes", tile(base + 1), b_tile);
  refusal_row(rep, "A + 16 bytes", tile(base + 8), b_tile);
  refusal_row(rep, "lda = 20", tile(base, Layout::row_major, 20), b_tile);
  refusal_row(rep, "tile at column 8 of a 24-wide matrix", tile(base + 8, Layout::row_major, kWide), b_tile);

  // The PTX path has no 32-byte rule: each lane loads single elements.
  {
    const HostDeviceTile<__half> a1 = make_input<__half>(1 + 256, o.dist, o.seed, 0);
    DeviceBuffer<float> d = poisoned_output<float>(256);
    const cudaError_t err = ptx_mma_16x16x16_f16_f32acc(tile(a1.device.data() + 1), b_tile, tile(d.data()));
    const std::string check = "PTX mma with A + 2 bytes (scalar loads: legal)";
    if (err == cudaErrorNotSupported) {
      rep.add_note("alignment", check, shape_name(s), kF16F32, "SKIP", kNeedsSm80);
    } else {
      TCU_CUDA_CHECK(err);
      TCU_CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<float> d_host(256);
      d.copy_to_host(d_host.data(), d_host.size());
      const ProductReference want =
          reference_product(a1.host.data() + 1, Layout::row_major, 0, b.host.data(), Layout::row_major, 0, s);
      const Tolerance tol = product_tolerance(s.k, NumType::fp16, NumType::fp32, NumType::fp32, o.dist);
      rep.add_verified("alignment", check, shape_name(s), kF16F32,
                       verify_tile(d_host, Layout::row_major, 0, want, s, tol), tol, o.verify);
    }
  }

  if (!o.broken_demo) {
    out << "The raw kernel with broken arguments: skipped (--no-broken-demo).\n";
    rep.add_note("alignment", "raw kernel with broken arguments", shape_name(s), kF16F32, "SKIP", "--no-broken-demo");
    return;
  }
  out << "And what the hardware does with them — the unchecked kernel, each case in a child process\n"
         "(this program re-run with --internal-broken-case=N) so that a sticky fault cannot harm us:\n";
  const std::vector<std::string> child_args = {"--device=" + std::to_string(o.device),
                                               "--seed=" + std::to_string(o.seed),
                                               std::string("--dist=") + dist_name(o.dist)};
  for (const BrokenCase& bc : kBrokenCases) {
    const BrokenCaseReport r = run_broken_case_in_child(bc.id, child_args);
    out << "  case " << bc.id << ", " << bc.details << ":\n      " << r.outcome << "\n";
    // Undefined behaviour has no right answer: what the child saw is INFO. Only a demo that could
    // not run at all (no child, no report) is a failure.
    if (r.observed)
      rep.add_note("alignment", std::string("raw kernel: ") + bc.name, shape_name(s), kF16F32, "INFO", r.outcome);
    else
      rep.add_verdict("alignment", std::string("raw kernel: ") + bc.name, shape_name(s), kF16F32, false, r.outcome);
  }
  out << "Whatever happened above is this GPU's behaviour today, not a rule: check before launching.\n";
}

// ---------------------------------------------------------------------------------------------
namespace {

const char* meaning_of(ConstantProduct op) {
  switch (op) {
    case ConstantProduct::P_X: return "row 0 = column sums, rest 0";
    case ConstantProduct::X_Pt: return "column 0 = row sums, rest 0";
    case ConstantProduct::X_U: return "inclusive scan of every row";
    case ConstantProduct::L_X: return "exclusive scan of every column";
    case ConstantProduct::X_ones: return "row sums, broadcast along each row";
  }
  return "?";
}

void print_constant_pictures(std::ostream& out) {
  // Every matrix of the shared table (common/tensor_core/constant_matrices.hpp), by its rule,
  // then the pictures: the four of this chapter, and the parametrised ones later chapters use.
  for (const tc::ConstantMatrixInfo& info : kConstantMatrices)
    out << "  " << info.name << (info.param ? std::string("(") + info.param + ")" : std::string()) << ": " << info.rule
        << "\n";
  struct Shown {
    ConstantMatrix m;
    int param;
    const char* title;
  };
  const Shown groups[2][4] = {{{ConstantMatrix::P, 0, "P"}, {ConstantMatrix::Pt, 0, "Pt"}, {ConstantMatrix::U, 0, "U"},
                               {ConstantMatrix::L, 0, "L"}},
                              {{ConstantMatrix::L, 4, "L (g = 4)"}, {ConstantMatrix::E, 3, "E_3"},
                               {ConstantMatrix::M, 4, "M (m = 4)"}, {ConstantMatrix::ones, 0, "1"}}};
  for (const auto& shown : groups) {
    out << " ";
    for (const Shown& s : shown) {
      std::string title = s.title;
      title.resize(kConstantTile + 3, ' ');
      out << "  " << title;
    }
    out << "\n";
    for (int r = 0; r < kConstantTile; ++r) {
      out << " ";
      for (const Shown& s : shown) {
        out << "  ";
        for (int c = 0; c < kConstantTile; ++c) out << (constant_entry_is_one(s.m, r, c, s.param) ? '1' : '.');
        out << "   ";
      }
      out << "\n";
    }
  }
}

void constant_row(const LessonOptions& o, LessonReport& rep, ConstantProduct op, Layout x_layout,
                  const std::string& check) {
  constexpr MmaShape s = kShape16x16x16;
  const Tolerance tol = product_tolerance(s.k, NumType::fp16, NumType::fp32, NumType::fp32, o.dist);
  const std::vector<__half> c = make_constant_matrix<__half>(constant_of(op));
  VerifyResult total;
  for (int i = 0; i < o.seeds; ++i) {
    const HostDeviceTile<__half> x = make_input<__half>(256, o.dist, o.seed + static_cast<std::uint64_t>(i), 0);
    DeviceBuffer<float> d = poisoned_output<float>(256);
    TCU_CUDA_CHECK(constant_product(op, tile(x.device.data(), x_layout), tile(d.data())));
    TCU_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> d_host(256);
    d.copy_to_host(d_host.data(), d_host.size());
    const ProductReference want =
        constant_on_left(op) ? reference_product(c.data(), Layout::row_major, 0, x.host.data(), x_layout, 0, s)
                             : reference_product(x.host.data(), x_layout, 0, c.data(), Layout::row_major, 0, s);
    const VerifyResult r = verify_tile(d_host, Layout::row_major, 0, want, s, tol);
    total = (i == 0) ? r : merge(total, r);
  }
  rep.add_verified("constants", check, shape_name(s), kF16F32, total, tol, o.verify);
}

}  // namespace

void lesson_constants(const LessonOptions& o, LessonReport& rep) {
  std::ostream& out = rep.out;
  heading(out, "constants: P, P^T, U, L and 1 as fragments (a preview of chapters 03 and 04)");
  out << "Reductions and scans are products with constant matrices (docs/algorithms.md). '1' = one, '.' = zero:\n";
  print_constant_pictures(out);
  out << "U[k][j] = 1 iff k <= j and L[i][k] = 1 iff k < i, as drawn in Dakkak et al.; the paper's text\n"
         "states the transposes (erratum), which would not give a scan. The fragments are built portably:\n"
         "1 with fill_fragment (the same value everywhere); P, U, L written to shared memory by (row, col)\n"
         "and loaded; P^T is P's memory loaded as a col_major matrix_b (a transpose for free).\n";
  for (ConstantProduct op : kAllConstantProducts)
    constant_row(o, rep, op, Layout::row_major, std::string(constant_product_name(op)) + ": " + meaning_of(op));
  constant_row(o, rep, ConstantProduct::P_X, Layout::col_major, "P*X, X col_major: 16 segment sums (Reduction16)");
}

// ---------------------------------------------------------------------------------------------
void run_lesson_section(const std::string& name, const LessonOptions& o, LessonReport& rep) {
  if (name == "products") return lesson_products(o, rep);
  if (name == "shapes") return lesson_shapes(o, rep);
  if (name == "layouts") return lesson_layouts(o, rep);
  if (name == "elementwise") return lesson_elementwise(o, rep);
  if (name == "fragment_map") return lesson_fragment_map(o, rep);
  if (name == "ptx_mma") return lesson_ptx_mma(o, rep);
  if (name == "alignment") return lesson_alignment(o, rep);
  if (name == "constants") return lesson_constants(o, rep);
  throw std::invalid_argument("no lesson section named '" + name + "'");
}

}  // namespace tcu::wmma_basics
