#include "src/frf/libm_log.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace frfit {
namespace {

#if defined(__x86_64__)
// The C library's log (glibc 2.28 on: ARM's optimized-routines, math/log.c and math/log_data.c,
// MIT licence): log x = k·ln 2 + log c + log1p(z/c − 1) with x = 2^k·z, c from a table of 128
// cells, and a degree-6 polynomial in r = z·(1/c) − 1. The copy below does the same operations in
// the same order, with the fused multiply-adds where the library's FMA build has them, so that
// every value is the library's bit for bit. Values the table path does not take (within 1/16 of 1,
// subnormal, zero, negative, inf, NaN) go to std::log itself.
constexpr double kInvC[128] = {
    0x1.734f0c3e0de9fp+0, 0x1.713786a2ce91fp+0, 0x1.6f26008fab5a0p+0, 0x1.6d1a61f138c7dp+0,
    0x1.6b1490bc5b4d1p+0, 0x1.69147332f0cbap+0, 0x1.6719f18224223p+0, 0x1.6524f99a51ed9p+0,
    0x1.63356aa8f24c4p+0, 0x1.614b36b9ddc14p+0, 0x1.5f66452c65c4cp+0, 0x1.5d867b5912c4fp+0,
    0x1.5babccb5b90dep+0, 0x1.59d61f2d91a78p+0, 0x1.5805612465687p+0, 0x1.56397cee76bd3p+0,
    0x1.54725e2a77f93p+0, 0x1.52aff42064583p+0, 0x1.50f22dbb2bddfp+0, 0x1.4f38f4734ded7p+0,
    0x1.4d843cfde2840p+0, 0x1.4bd3ec078a3c8p+0, 0x1.4a27fc3e0258ap+0, 0x1.4880524d48434p+0,
    0x1.46dce1b192d0bp+0, 0x1.453d9d3391854p+0, 0x1.43a2744b4845ap+0, 0x1.420b54115f8fbp+0,
    0x1.40782da3ef4b1p+0, 0x1.3ee8f5d57fe8fp+0, 0x1.3d5d9a00b4ce9p+0, 0x1.3bd60c010c12bp+0,
    0x1.3a5242b75dab8p+0, 0x1.38d22cd9fd002p+0, 0x1.3755bc5847a1cp+0, 0x1.35dce49ad36e2p+0,
    0x1.34679984dd440p+0, 0x1.32f5cceffcb24p+0, 0x1.3187775a10d49p+0, 0x1.301c8373e3990p+0,
    0x1.2eb4ebb95f841p+0, 0x1.2d50a0219a9d1p+0, 0x1.2bef9a8b7fd2ap+0, 0x1.2a91c7a0c1babp+0,
    0x1.293726014b530p+0, 0x1.27dfa5757a1f5p+0, 0x1.268b39b1d3bbfp+0, 0x1.2539d838ff5bdp+0,
    0x1.23eb7aac9083bp+0, 0x1.22a012ba940b6p+0, 0x1.2157996cc4132p+0, 0x1.201201dd2fc9bp+0,
    0x1.1ecf4494d480bp+0, 0x1.1d8f5528f6569p+0, 0x1.1c52311577e7cp+0, 0x1.1b17c74cb26e9p+0,
    0x1.19e010c2c1ab6p+0, 0x1.18ab07bb670bdp+0, 0x1.1778a25efbcb6p+0, 0x1.1648d354c31dap+0,
    0x1.151b990275fddp+0, 0x1.13f0ea432d24cp+0, 0x1.12c8b7210f9dap+0, 0x1.11a3028ecb531p+0,
    0x1.107fbda8434afp+0, 0x1.0f5ee0f4e6bb3p+0, 0x1.0e4065d2a9fcep+0, 0x1.0d244632ca521p+0,
    0x1.0c0a77ce2981ap+0, 0x1.0af2f83c636d1p+0, 0x1.09ddb98a01339p+0, 0x1.08cabaf52e7dfp+0,
    0x1.07b9f2f4e28fbp+0, 0x1.06ab58c358f19p+0, 0x1.059eea5ecf92cp+0, 0x1.04949cdd12c90p+0,
    0x1.038c6c6f0ada9p+0, 0x1.02865137932a9p+0, 0x1.0182427ea7348p+0, 0x1.008040614b195p+0,
    0x1.fe01ff726fa1ap-1, 0x1.fa11cc261ea74p-1, 0x1.f6310b081992ep-1, 0x1.f25f63ceeadcdp-1,
    0x1.ee9c8039113e7p-1, 0x1.eae8078cbb1abp-1, 0x1.e741aa29d0c9bp-1, 0x1.e3a91830a99b5p-1,
    0x1.e01e009609a56p-1, 0x1.dca01e577bb98p-1, 0x1.d92f20b7c9103p-1, 0x1.d5cac66fb5ccep-1,
    0x1.d272caa5ede9dp-1, 0x1.cf26e3e6b2ccdp-1, 0x1.cbe6da2a77902p-1, 0x1.c8b266d37086dp-1,
    0x1.c5894bd5d5804p-1, 0x1.c26b533bb9f8cp-1, 0x1.bf583eeece73fp-1, 0x1.bc4fd75db96c1p-1,
    0x1.b951e0c864a28p-1, 0x1.b65e2c5ef3e2cp-1, 0x1.b374867c9888bp-1, 0x1.b094b211d304ap-1,
    0x1.adbe885f2ef7ep-1, 0x1.aaf1d31603da2p-1, 0x1.a82e63fd358a7p-1, 0x1.a5740ef09738bp-1,
    0x1.a2c2a90ab4b27p-1, 0x1.a01a01393f2d1p-1, 0x1.9d79f24db3c1bp-1, 0x1.9ae2505c7b190p-1,
    0x1.9852ef297ce2fp-1, 0x1.95cbaeea44b75p-1, 0x1.934c69de74838p-1, 0x1.90d4f2f6752e6p-1,
    0x1.8e6528effd79dp-1, 0x1.8bfce9fcc007cp-1, 0x1.899c0dabec30ep-1, 0x1.87427aa2317fbp-1,
    0x1.84f00acb39a08p-1, 0x1.82a49e8653e55p-1, 0x1.8060195f40260p-1, 0x1.7e22563e0a329p-1,
    0x1.7beb377dcb5adp-1, 0x1.79baa679725c2p-1, 0x1.77907f2170657p-1, 0x1.756cadbd6130cp-1,
};
constexpr double kLogC[128] = {
    -0x1.7cc7f79e69000p-2, -0x1.76feec20d0000p-2, -0x1.713e31351e000p-2, -0x1.6b85b38287800p-2,
    -0x1.65d5590807800p-2, -0x1.602d076180000p-2, -0x1.5a8ca86909000p-2, -0x1.54f4356035000p-2,
    -0x1.4f637c36b4000p-2, -0x1.49da7fda85000p-2, -0x1.445923989a800p-2, -0x1.3edf439b0b800p-2,
    -0x1.396ce448f7000p-2, -0x1.3401e17bda000p-2, -0x1.2e9e2ef468000p-2, -0x1.2941b3830e000p-2,
    -0x1.23ec58cda8800p-2, -0x1.1e9e129279000p-2, -0x1.1956d2b48f800p-2, -0x1.141679ab9f800p-2,
    -0x1.0edd094ef9800p-2, -0x1.09aa518db1000p-2, -0x1.047e65263b800p-2, -0x1.feb224586f000p-3,
    -0x1.f474a7517b000p-3, -0x1.ea4443d103000p-3, -0x1.e020d44e9b000p-3, -0x1.d60a22977f000p-3,
    -0x1.cc00104959000p-3, -0x1.c202956891000p-3, -0x1.b81178d811000p-3, -0x1.ae2c9ccd3d000p-3,
    -0x1.a45402e129000p-3, -0x1.9a877681df000p-3, -0x1.90c6d69483000p-3, -0x1.87120a645c000p-3,
    -0x1.7d68fb4143000p-3, -0x1.73cb83c627000p-3, -0x1.6a39a9b376000p-3, -0x1.60b3154b7a000p-3,
    -0x1.5737d76243000p-3, -0x1.4dc7b8fc23000p-3, -0x1.4462c51d20000p-3, -0x1.3b08abc830000p-3,
    -0x1.31b996b490000p-3, -0x1.2875490a44000p-3, -0x1.1f3b9f879a000p-3, -0x1.160c8252ca000p-3,
    -0x1.0ce7f57f72000p-3, -0x1.03cdc49fea000p-3, -0x1.f57bdbc4b8000p-4, -0x1.e370896404000p-4,
    -0x1.d17983ef94000p-4, -0x1.bf9674ed8a000p-4, -0x1.adc79202f6000p-4, -0x1.9c0c3e7288000p-4,
    -0x1.8a646b372c000p-4, -0x1.78d01b3ac0000p-4, -0x1.674f145380000p-4, -0x1.55e0e6d878000p-4,
    -0x1.4485cdea1e000p-4, -0x1.333d94d6aa000p-4, -0x1.22079f8c56000p-4, -0x1.10e4698622000p-4,
    -0x1.ffa6c6ad20000p-5, -0x1.dda8d4a774000p-5, -0x1.bbcece4850000p-5, -0x1.9a1894012c000p-5,
    -0x1.788583302c000p-5, -0x1.5715e67d68000p-5, -0x1.35c8a49658000p-5, -0x1.149e364154000p-5,
    -0x1.e72c082eb8000p-6, -0x1.a55f152528000p-6, -0x1.63d62cf818000p-6, -0x1.228fb8caa0000p-6,
    -0x1.c317b20f90000p-7, -0x1.419355daa0000p-7, -0x1.81203c2ec0000p-8, -0x1.0040979240000p-9,
    0x1.feff384900000p-9,  0x1.7dc41353d0000p-7,  0x1.3cea3c4c28000p-6,  0x1.b9fc114890000p-6,
    0x1.1b0d8ce110000p-5,  0x1.58a5bd001c000p-5,  0x1.95c8340d88000p-5,  0x1.d276aef578000p-5,
    0x1.07598e598c000p-4,  0x1.253f5e30d2000p-4,  0x1.42edd8b380000p-4,  0x1.606598757c000p-4,
    0x1.7da76356a0000p-4,  0x1.9ab434e1c6000p-4,  0x1.b78c7bb0d6000p-4,  0x1.d431332e72000p-4,
    0x1.f0a3171de6000p-4,  0x1.067152b914000p-3,  0x1.147858292b000p-3,  0x1.2266ecdca3000p-3,
    0x1.303d7a6c55000p-3,  0x1.3dfc33c331000p-3,  0x1.4ba366b7a8000p-3,  0x1.5933928d1f000p-3,
    0x1.66acd2418f000p-3,  0x1.740f8ec669000p-3,  0x1.815c0f51af000p-3,  0x1.8e92954f68000p-3,
    0x1.9bb3602f84000p-3,  0x1.a8bed1c2c0000p-3,  0x1.b5b515c01d000p-3,  0x1.c2967ccbcc000p-3,
    0x1.cf635d5486000p-3,  0x1.dc1bd3446c000p-3,  0x1.e8c01b8cfe000p-3,  0x1.f5509c0179000p-3,
    0x1.00e6c121fb800p-2,  0x1.071b80e93d000p-2,  0x1.0d46b9e867000p-2,  0x1.13687334bd000p-2,
    0x1.1980d67234800p-2,  0x1.1f8ffe0cc8000p-2,  0x1.2595fd7636800p-2,  0x1.2b9300914a800p-2,
    0x1.3187210436000p-2,  0x1.377266dec1800p-2,  0x1.3d54ffbaf3000p-2,  0x1.432eee32fe000p-2,
};
constexpr double kLn2Hi = 0x1.62e42fefa3800p-1, kLn2Lo = 0x1.ef35793c76730p-45;
constexpr double kPoly[5] = {-0x1.0000000000001p-1, 0x1.555555551305bp-2, -0x1.fffffffeb4590p-3,
                             0x1.999b324f10111p-3, -0x1.55575e506c89fp-3};

constexpr std::uint64_t kOff = 0x3fe6000000000000ULL;  // the table's cells start at 0.6875·2^k
constexpr std::uint64_t kNearOneLo = 0x3fee000000000000ULL;                 // 1 − 1/16
constexpr std::uint64_t kNearOneSpan = 0x3ff1090000000000ULL - kNearOneLo;  // to 1 + 0x1.09p-4

// Four values by the table path; false (and nothing written) when one of them needs another path.
__attribute__((target("avx2,fma"))) inline bool Log4(__m256d x, __m256d* out) {
  const __m256i ix = _mm256_castpd_si256(x);
  const __m256i sign = _mm256_set1_epi64x(static_cast<long long>(0x8000000000000000ULL));
  // Unsigned compares as signed ones with the sign bit flipped.
  const __m256i near_one = _mm256_cmpgt_epi64(
      _mm256_set1_epi64x(static_cast<long long>(kNearOneSpan ^ 0x8000000000000000ULL)),
      _mm256_xor_si256(_mm256_sub_epi64(ix, _mm256_set1_epi64x(kNearOneLo)), sign));
  const __m256i top = _mm256_sub_epi64(_mm256_srli_epi64(ix, 48), _mm256_set1_epi64x(0x10));
  const __m256i special = _mm256_or_si256(_mm256_cmpgt_epi64(_mm256_setzero_si256(), top),
                                          _mm256_cmpgt_epi64(top, _mm256_set1_epi64x(0x7fdf)));
  if (!_mm256_testz_si256(_mm256_or_si256(near_one, special), _mm256_or_si256(near_one, special)))
    return false;
  const __m256i tmp = _mm256_sub_epi64(ix, _mm256_set1_epi64x(kOff));
  const __m256i cell = _mm256_and_si256(_mm256_srli_epi64(tmp, 45), _mm256_set1_epi64x(127));
  // k = tmp >> 52 as a signed shift: the 12 bits sign-extended, then the four to doubles.
  const __m256i k12 =
      _mm256_sub_epi64(_mm256_xor_si256(_mm256_srli_epi64(tmp, 52), _mm256_set1_epi64x(0x800)),
                       _mm256_set1_epi64x(0x800));
  const __m128i k32 = _mm256_castsi256_si128(
      _mm256_permutevar8x32_epi32(k12, _mm256_setr_epi32(0, 2, 4, 6, 0, 0, 0, 0)));
  const __m256d kd = _mm256_cvtepi32_pd(k32);
  const __m256i iz = _mm256_sub_epi64(
      ix, _mm256_and_si256(tmp, _mm256_set1_epi64x(static_cast<long long>(0xfff0000000000000ULL))));
  const __m256d z = _mm256_castsi256_pd(iz);
  // Four loads rather than a gather instruction: faster on the AMD cores we run on.
  alignas(32) std::int64_t at[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(at), cell);
  const __m256d invc = _mm256_setr_pd(kInvC[at[0]], kInvC[at[1]], kInvC[at[2]], kInvC[at[3]]);
  const __m256d logc = _mm256_setr_pd(kLogC[at[0]], kLogC[at[1]], kLogC[at[2]], kLogC[at[3]]);
  const __m256d r = _mm256_fmadd_pd(z, invc, _mm256_set1_pd(-1.0));
  const __m256d w = _mm256_fmadd_pd(kd, _mm256_set1_pd(kLn2Hi), logc);
  const __m256d hi = _mm256_add_pd(w, r);
  const __m256d lo =
      _mm256_fmadd_pd(kd, _mm256_set1_pd(kLn2Lo), _mm256_add_pd(_mm256_sub_pd(w, hi), r));
  const __m256d r2 = _mm256_mul_pd(r, r);
  const __m256d r3 = _mm256_mul_pd(r, r2);
  const __m256d p1 = _mm256_fmadd_pd(r, _mm256_set1_pd(kPoly[2]), _mm256_set1_pd(kPoly[1]));
  const __m256d p2 = _mm256_fmadd_pd(r, _mm256_set1_pd(kPoly[4]), _mm256_set1_pd(kPoly[3]));
  const __m256d lo2 = _mm256_fmadd_pd(r2, _mm256_set1_pd(kPoly[0]), lo);
  const __m256d p = _mm256_fmadd_pd(p2, r2, p1);
  *out = _mm256_add_pd(_mm256_fmadd_pd(r3, p, lo2), hi);
  return true;
}

__attribute__((target("avx2,fma"))) void Logs4(const double* x, double* out, std::size_t n) {
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    __m256d y;
    if (Log4(_mm256_loadu_pd(x + i), &y))
      _mm256_storeu_pd(out + i, y);
    else
      for (std::size_t j = i; j < i + 4; ++j) out[j] = std::log(x[j]);
  }
  for (; i < n; ++i) out[i] = std::log(x[i]);
}

// ExpNegLogLikelihoodTerms four at a time.
__attribute__((target("avx2,fma"))) void Terms4(const double* m, const double* v, std::size_t n,
                                                double alpha, double beta, double* terms) {
  const __m256d a = _mm256_set1_pd(alpha), b = _mm256_set1_pd(beta);
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m256d sigma2 = _mm256_add_pd(_mm256_mul_pd(a, _mm256_loadu_pd(m + i)), b);
    __m256d log;
    if (Log4(sigma2, &log)) {
      _mm256_storeu_pd(terms + i,
                       _mm256_add_pd(log, _mm256_div_pd(_mm256_loadu_pd(v + i), sigma2)));
    } else {
      for (std::size_t j = i; j < i + 4; ++j) {
        const double s2 = alpha * m[j] + beta;
        terms[j] = std::log(s2) + v[j] / s2;
      }
    }
  }
  for (; i < n; ++i) {
    const double s2 = alpha * m[i] + beta;
    terms[i] = std::log(s2) + v[i] / s2;
  }
}

// ExpNegLogLikelihood four terms at a time; the running sum stays serial, but the next terms'
// logarithms overlap its additions.
__attribute__((target("avx2,fma"))) double Likelihood4(const double* m, const double* v,
                                                       std::size_t n, double alpha, double beta) {
  const __m256d a = _mm256_set1_pd(alpha), b = _mm256_set1_pd(beta);
  double sum = 0.0;
  std::size_t i = 0;
  alignas(32) double term[4];
  for (; i + 4 <= n; i += 4) {
    const __m256d sigma2 = _mm256_add_pd(_mm256_mul_pd(a, _mm256_loadu_pd(m + i)), b);
    __m256d log;
    if (Log4(sigma2, &log)) {
      _mm256_store_pd(term, _mm256_add_pd(log, _mm256_div_pd(_mm256_loadu_pd(v + i), sigma2)));
    } else {
      for (std::size_t j = 0; j < 4; ++j) {
        const double s2 = alpha * m[i + j] + beta;
        term[j] = std::log(s2) + v[i + j] / s2;
      }
    }
    sum += term[0], sum += term[1], sum += term[2], sum += term[3];
  }
  for (; i < n; ++i) {
    const double s2 = alpha * m[i] + beta;
    sum += std::log(s2) + v[i] / s2;
  }
  return sum;
}

// The copy is used only where it gave the library's bits on every probe: each table cell at
// several places, over the whole exponent range, and values near 1 and beyond the table path
// (which go to std::log either way). A C library with another log fails here and keeps std::log.
bool CopyAgreesWithLibrary() {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return false;
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  auto next = [&state] {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
  };
  constexpr int kProbes = 1 << 16;
  static double probe[kProbes], mine[kProbes];
  for (int p = 0; p < kProbes; ++p) {
    const std::uint64_t exponent = (p * 37 + 1) % 2047;  // biased exponents 1..2046
    const std::uint64_t mantissa = (static_cast<std::uint64_t>(p % 128) << 45) | (next() >> 19);
    std::uint64_t bits = (exponent << 52) | (mantissa & 0xfffffffffffffULL);
    if (p % 61 == 0) bits = 0x3ff0000000000000ULL + (next() >> 40) - (1ULL << 23);  // near 1
    if (p % 97 == 0) bits = next() >> 13;                                           // subnormal
    std::memcpy(&probe[p], &bits, sizeof bits);
  }
  Logs4(probe, mine, kProbes);
  for (int p = 0; p < kProbes; ++p) {
    const double want = std::log(probe[p]);
    if (std::memcmp(&want, &mine[p], sizeof want) != 0) return false;
  }
  return true;
}
#else
bool CopyAgreesWithLibrary() { return false; }
#endif

}  // namespace

bool LibmLogsAreVectorised() {
  static const bool agrees = CopyAgreesWithLibrary();
  return agrees;
}

void LibmLogs(const double* x, double* out, std::size_t n) {
#if defined(__x86_64__)
  if (LibmLogsAreVectorised()) return Logs4(x, out, n);
#endif
  for (std::size_t i = 0; i < n; ++i) out[i] = std::log(x[i]);
}

void ExpNegLogLikelihoodTerms(const double* m, const double* v, std::size_t n, double alpha,
                              double beta, double* terms) {
#if defined(__x86_64__)
  if (LibmLogsAreVectorised()) return Terms4(m, v, n, alpha, beta, terms);
#endif
  for (std::size_t i = 0; i < n; ++i) {
    const double sigma2 = alpha * m[i] + beta;
    terms[i] = std::log(sigma2) + v[i] / sigma2;
  }
}

double ExpNegLogLikelihood(const double* m, const double* v, std::size_t n, double alpha,
                           double beta) {
#if defined(__x86_64__)
  if (LibmLogsAreVectorised()) return Likelihood4(m, v, n, alpha, beta);
#endif
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double sigma2 = alpha * m[i] + beta;
    sum += std::log(sigma2) + v[i] / sigma2;
  }
  return sum;
}

}  // namespace frfit
