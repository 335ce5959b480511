// Every op of the Vulkan backend against the CPU's scalar reference, in the manner of
// llama.cpp's test-backend-ops: each weight type x each candidate of vulkan_kernels() x the
// shapes its guard takes (odd sizes; batches 1, 2, 7, 16, 64, 512, narrower for the large ones),
// each op against float64 math over the same inputs, with the validation layer on and no
// validation error allowed. Each run checks, from the timings, that the candidate meant ran, and
// the last test that every candidate did (a candidate is tested by registering it). Candidates
// that need a feature (subgroup arithmetic) run on a context that has it, the others on one
// without it. Tolerances, per op:
// - matmul, matmul_experts: the shaders widen the same blocks the reference dequantizers widen
//   and sum in F32: normalized mean squared error <= 1e-10, max error <= 1e-5 of max |y|.
// - get_rows: the reference dequantizer's values to 1e-6 of the row's max |value|.
// - rms_norm, layer_norm, add, add_bias, scale, soft_cap, swiglu, geglu, gelu,
//   weighted_sum_experts, topk_softmax weights: |error| <= 1e-5 * max(1, |exact|).
// - rope: 1e-5 of max |x| plus the angle's own F32 rounding, 4 * position * 2^-24.
// - store_kv: F16, Q8_0 and Q4_0 rows byte for byte the CPU quantizers' (the cache's rounding),
//   and the positions not written untouched.
// - attention: |error| <= 2e-5 of max |value| against float64 softmax over the same cached
//   (widened) keys and values.
// The worst errors are printed per weight type and per op.
#include "kernels/dispatch_metrics.h"
#include "kernels/fp16.h"
#include "kernels/kernel_table.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/tensor_type.h"
#include "kernels/vulkan/vulkan_context.h"
#include "kernels/vulkan/vulkan_devices.h"
#include "kernels/vulkan/vulkan_kernel_table.h"
#include "kernels/vulkan/vulkan_ops.h"
#include "tests/support/normal_data.h"

#include <QTest>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <set>

using namespace hearth::kernels;
using namespace hearth::kernels::vulkan;
using hearth::test::normal_data;

namespace {

const TensorType kWeightTypes[] = {TensorType::F32,  TensorType::F16,  TensorType::BF16, TensorType::Q8_0,
                                   TensorType::Q4_0, TensorType::Q4_1, TensorType::Q5_0, TensorType::Q5_1,
                                   TensorType::Q2_K, TensorType::Q3_K, TensorType::Q4_K, TensorType::Q5_K,
                                   TensorType::Q6_K};

constexpr double kMatmulNmse = 1e-10;
constexpr double kMatmulMax = 1e-5;
constexpr double kGetRowsMax = 1e-6;
constexpr double kElementwiseMax = 1e-5;
constexpr double kRopeMax = 1e-5;
constexpr double kAttentionMax = 2e-5;

bool is_float_type(TensorType t) {
    return t == TensorType::F32 || t == TensorType::F16 || t == TensorType::BF16;
}

// Errors of a result against float64 values.
struct Errors {
    double nmse = 0;      // sum (y - exact)^2 / sum exact^2
    double max_rel = 0;   // max |y - exact| / max |exact|
    double max_mixed = 0; // max |y - exact| / max(1, |exact|)
};

// The larger error, a NaN counting as infinite (std::max would drop it).
double worse(double a, double b) {
    return std::isnan(b) ? INFINITY : std::max(a, b);
}

Errors errors_of(const std::vector<float>& y, const std::vector<double>& exact) {
    double num = 0, den = 0, max_abs = 0, scale = 0, mixed = 0;
    for (size_t i = 0; i < y.size(); ++i) {
        const double e = std::isfinite(y[i]) ? std::fabs(y[i] - exact[i]) : INFINITY;
        num += e * e;
        den += exact[i] * exact[i];
        max_abs = worse(max_abs, e);
        scale = std::max(scale, std::fabs(exact[i]));
        mixed = worse(mixed, e / std::max(1.0, std::fabs(exact[i])));
    }
    return {den > 0 ? num / den : num, scale > 0 ? max_abs / scale : max_abs, mixed};
}

// A weight matrix quantized by the reference quantizer: its bytes and its widened values.
struct HostMatrix {
    TensorType type;
    int64_t rows, cols;
    size_t row_bytes;
    std::vector<uint8_t> bytes;
    std::vector<float> values; // dequantized, (rows, cols)
};

HostMatrix make_matrix(TensorType type, int64_t rows, int64_t cols, uint32_t seed) {
    const TypeCandidates& k = reference_kernels().of(type);
    HostMatrix m{type, rows, cols, row_bytes(type, cols), {}, {}};
    const std::vector<float> source = normal_data(rows * cols, seed, 0.1f);
    m.bytes.resize(m.row_bytes * static_cast<size_t>(rows));
    m.values.resize(static_cast<size_t>(rows * cols));
    for (int64_t r = 0; r < rows; ++r) {
        k.quantize.fn()(source.data() + r * cols, m.bytes.data() + r * m.row_bytes, cols);
        k.dequantize.fn()(m.bytes.data() + r * m.row_bytes, m.values.data() + r * cols, cols);
    }
    return m;
}

// dot(W[row_begin + r], x[b]) in double for b < batch, r < n_rows (-1: the rows from row_begin
// on), batch-major.
std::vector<double> exact_products(const HostMatrix& m, const std::vector<float>& x, int64_t batch,
                                   int64_t row_begin = 0, int64_t n_rows = -1) {
    if (n_rows < 0) n_rows = m.rows - row_begin;
    std::vector<double> exact;
    for (int64_t b = 0; b < batch; ++b)
        for (int64_t r = 0; r < n_rows; ++r) {
            double sum = 0;
            for (int64_t k = 0; k < m.cols; ++k)
                sum += static_cast<double>(m.values[(row_begin + r) * m.cols + k]) * x[b * m.cols + k];
            exact.push_back(sum);
        }
    return exact;
}

QByteArray type_name(TensorType t) {
    return QByteArray(type_traits(t).name.data(), static_cast<qsizetype>(type_traits(t).name.size()));
}

QByteArray name_of(std::string_view name) {
    return QByteArray(name.data(), static_cast<qsizetype>(name.size()));
}

// The candidate of `op` that ran in a recorder's last submit, by its timings (several: the first).
KernelId kernel_that_ran(const Recorder& recorder, const std::string& op) {
    for (const OpTiming& t : recorder.timings())
        if (t.name == op) return t.kernel;
    return kUnnamedKernel;
}

} // namespace

class TestVulkanOps : public QObject {
    Q_OBJECT

    std::unique_ptr<Context> context_;
    // Another context of the device without subgroup operations: where the candidates that do
    // without them run.
    std::unique_ptr<Context> plain_;
    std::map<QByteArray, Errors> worst_; // per op or weight type
    std::set<KernelId> ran_;             // the candidates that ran

    // The context whose features are exactly `features`, or null when neither has them.
    Context* context_with(uint32_t features) {
        for (Context* c : {context_.get(), plain_.get()})
            if (c->features() == features) return c;
        return nullptr;
    }
    // Makes `context` the one the helpers use, until destroyed.
    struct UsingContext {
        TestVulkanOps& test;
        bool swapped;
        UsingContext(TestVulkanOps& t, Context* context) : test(t), swapped(context == t.plain_.get()) {
            if (swapped) std::swap(test.context_, test.plain_);
        }
        ~UsingContext() {
            if (swapped) std::swap(test.context_, test.plain_);
        }
    };
    // Whether the candidate of `op` meant to run did (and notes it ran).
    bool ran(const Recorder& recorder, const std::string& op, const Candidate<ShaderPlan>& meant) {
        const KernelId kernel = kernel_that_ran(recorder, op);
        ran_.insert(kernel);
        if (kernel == meant.id) return true;
        qWarning("%s ran %s, not %s", op.c_str(), name_of(kernel_name(kernel).name).constData(),
                 name_of(meant.name).constData());
        return false;
    }
    // The offset every test places its weights at, in a larger buffer: not 16-byte aligned.
    static constexpr size_t kWeightOffset = 100;

    void note(const QByteArray& key, const Errors& e) {
        Errors& w = worst_[key];
        w.nmse = worse(w.nmse, e.nmse);
        w.max_rel = worse(w.max_rel, e.max_rel);
        w.max_mixed = worse(w.max_mixed, e.max_mixed);
    }

    template <class T>
    Buffer upload(const std::vector<T>& data, size_t offset = 0, Memory memory = Memory::DeviceLocal) {
        Buffer b(*context_, offset + data.size() * sizeof(T) + 4, memory);
        b.upload(data.data(), data.size() * sizeof(T), offset);
        return b;
    }
    std::vector<float> download(const Buffer& b, size_t count, size_t offset = 0) {
        std::vector<float> out(count);
        b.download(out.data(), count * sizeof(float), offset);
        return out;
    }
    static std::vector<float> download_from(const Buffer& b, size_t bytes) {
        std::vector<float> out(bytes / sizeof(float));
        b.download(out.data(), bytes);
        return out;
    }
    void check_validation() {
        QVERIFY2(context_->validation_errors() == 0, context_->last_validation_message().c_str());
    }

    // matmul_rows of rows [row_begin, row_begin + n_rows) of a (rows, cols) matrix, y with a
    // stride; x and y at offsets that are not 16-byte aligned. `kernel`: the candidate that ran.
    Errors run_matmul(TensorType type, int64_t rows, int64_t cols, int64_t batch, int64_t row_begin,
                      int64_t n_rows, int64_t y_stride, uint32_t seed, KernelId* kernel = nullptr) {
        const HostMatrix m = make_matrix(type, rows, cols, seed);
        const std::vector<float> x = normal_data(batch * cols, seed + 1, 0.0f);
        // Weights 4-byte aligned for even row counts, only 2-byte aligned for odd ones (F32
        // rows are read as words: always 4).
        const size_t w_offset = rows % 2 == 1 && type != TensorType::F32 ? kWeightOffset + 2 : kWeightOffset;
        Buffer wb = upload(m.bytes, w_offset);
        // x at a 16-byte offset (the shaders may read it as vec4) for odd batches, else at 4.
        const size_t x_offset = batch % 2 == 1 ? 16 : 4;
        Buffer xb = upload(x, x_offset);
        Buffer yb(*context_, 12 + static_cast<size_t>(batch * y_stride) * 4);
        Recorder recorder(*context_);
        recorder.begin();
        const DeviceMatrix w{type, rows, cols, {&wb, w_offset}};
        if (row_begin == 0 && n_rows == rows && y_stride == rows)
            recorder.matmul(w, {&xb, x_offset}, batch, {&yb, 12});
        else
            recorder.matmul_rows(w, row_begin, n_rows, {&xb, x_offset}, batch, {&yb, 12}, y_stride);
        recorder.submit_and_wait();
        const KernelId ran = kernel_that_ran(recorder, "matmul");
        ran_.insert(ran);
        if (kernel) *kernel = ran;
        const std::vector<float> all = download(yb, static_cast<size_t>(batch * y_stride), 12);
        std::vector<float> y;
        for (int64_t b = 0; b < batch; ++b)
            for (int64_t r = 0; r < n_rows; ++r)
                y.push_back(all[b * y_stride + r]);
        return errors_of(y, exact_products(m, x, batch, row_begin, n_rows));
    }

private slots:
    void initTestCase() {
        if (list_devices().empty()) QSKIP("no Vulkan device on this machine (no driver, or no loader)");
        ContextOptions options;
        options.validation = true; // throws when vulkan-validationlayers is missing: the test fails
        context_ = std::make_unique<Context>(options);
        options.subgroup_operations = false;
        plain_ = std::make_unique<Context>(options);
        qInfo("device: %s", describe(context_->device()).c_str());
    }

    void cleanupTestCase() {
        for (const auto& [key, e] : worst_)
            qInfo("worst %-22s nmse %.3g  max err/max|exact| %.3g  max err/max(1,|exact|) %.3g",
                  key.constData(), e.nmse, e.max_rel, e.max_mixed);
        if (context_) QCOMPARE(context_->validation_errors(), uint64_t{0});
        if (plain_) QCOMPARE(plain_->validation_errors(), uint64_t{0});
    }

    void matmul_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("candidate"); // its index in the type's list
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::addColumn<int>("batch");
        for (TensorType t : kWeightTypes) {
            const bool k_quant = type_traits(t).block_elements == QK_K;
            const int cols = k_quant ? 512 : 160;
            struct Shape {
                int rows, cols, batch;
            };
            std::vector<Shape> shapes = {{67, cols, 1}, {33, cols, 2}, {29, cols, 7},
                                         {70, 256, 16}, {45, 256, 64}, {21, 256, 512}};
            // Wide rows: several units per thread of the mat-vec shader.
            shapes.push_back({9, is_float_type(t) ? 2085 : k_quant ? 4096 : 2080, 1});
            shapes.push_back({5, is_float_type(t) ? 2085 : k_quant ? 4096 : 2080, 2});
            if (is_float_type(t)) {
                shapes.push_back({13, 77, 1}); // odd widths
                shapes.push_back({17, 77, 7});
                shapes.push_back({19, 45, 64});
            }
            const VulkanCandidates& candidates = vulkan_kernels().of(t).matmul;
            QVERIFY2(!candidates.empty(), type_name(t) + " has no Vulkan matmul candidate");
            for (int i = 0; i < candidates.size(); ++i) {
                const Candidate<ShaderPlan>& c = candidates.begin()[i];
                std::vector<Shape> taken;
                for (const Shape& shape : shapes)
                    if (shape.batch >= c.guard.min_batch && shape.batch <= c.guard.max_batch)
                        taken.push_back(shape);
                // A candidate of batches none of the shapes has: its smallest.
                if (taken.empty()) taken.push_back({33, cols, static_cast<int>(c.guard.min_batch)});
                for (const Shape& shape : taken)
                    QTest::addRow("%s %s rows %d cols %d batch %d", type_name(t).constData(),
                                  name_of(c.name).constData(), shape.rows, shape.cols, shape.batch)
                        << static_cast<int>(t) << i << shape.rows << shape.cols << shape.batch;
            }
        }
    }

    void matmul() {
        QFETCH(int, type);
        QFETCH(int, candidate);
        QFETCH(int, rows);
        QFETCH(int, cols);
        QFETCH(int, batch);
        const auto t = static_cast<TensorType>(type);
        const Candidate<ShaderPlan>& c = vulkan_kernels().of(t).matmul.begin()[candidate];
        Context* context = context_with(c.guard.features);
        if (!context) QSKIP("the device lacks the features this candidate needs");
        const UsingContext using_context(*this, context);
        KernelId kernel = kUnnamedKernel;
        const Errors e = run_matmul(t, rows, cols, batch, 0, rows, rows,
                                    static_cast<uint32_t>(rows * 31 + batch), &kernel);
        QVERIFY2(kernel == c.id, qPrintable("ran " + name_of(kernel_name(kernel).name)));
        note("matmul " + type_name(t), e);
        note("op matmul", e);
        note("op matmul " + name_of(c.name), e);
        QVERIFY2(e.nmse <= kMatmulNmse, qPrintable(QString("nmse %1").arg(e.nmse)));
        QVERIFY2(e.max_rel <= kMatmulMax, qPrintable(QString("max error %1 of max |y|").arg(e.max_rel)));
        check_validation();
    }

    void matmul_rows_of_a_fused_matrix() {
        // Rows 20..59 of a QKV-like Q4_K matrix of 90 rows, into a wider y (stride 50).
        for (int64_t batch : {1, 7, 20}) {
            const Errors e = run_matmul(TensorType::Q4_K, 90, 256, batch, 20, 40, 50, 5);
            note("op matmul_rows", e);
            QVERIFY2(e.nmse <= kMatmulNmse, qPrintable(QString("batch %1 nmse %2").arg(batch).arg(e.nmse)));
        }
        check_validation();
    }

    void matmul_large_tiles() {
        // Matrices large enough for the mat-mat shader's 128- and 64-row tiles.
        const Errors a = run_matmul(TensorType::Q4_0, 2048, 256, 512, 0, 2048, 2048, 101);
        const Errors b = run_matmul(TensorType::Q6_K, 1030, 256, 509, 0, 1030, 1030, 102);
        for (const Errors& e : {a, b}) {
            note("op matmul (large tiles)", e);
            QVERIFY2(e.nmse <= kMatmulNmse, qPrintable(QString("nmse %1").arg(e.nmse)));
            QVERIFY2(e.max_rel <= kMatmulMax, qPrintable(QString("max error %1 of max |y|").arg(e.max_rel)));
        }
        check_validation();
    }

    void large_matrices_are_bound_in_chunks() {
        // A context whose bindings hold at most 12000 bytes: matrices of 27 KB are bound in
        // three chunks of rows (devices bind 128 MiB to 4 GiB; lavapipe 128 MiB).
        ContextOptions options;
        options.validation = true;
        options.max_binding_bytes = 12000;
        Context small(options);
        const int64_t rows = 100, cols = 256;
        const HostMatrix m = make_matrix(TensorType::Q8_0, rows, cols, 81);
        for (int64_t batch : {2, 9}) {
            const std::vector<float> x = normal_data(batch * cols, 82, 0.0f);
            Buffer wb(small, m.bytes.size() + kWeightOffset), xb(small, x.size() * 4),
                yb(small, batch * rows * 4);
            wb.upload(m.bytes.data(), m.bytes.size(), kWeightOffset);
            xb.upload(x.data(), x.size() * 4);
            Recorder recorder(small);
            recorder.begin();
            recorder.matmul({TensorType::Q8_0, rows, cols, {&wb, kWeightOffset}}, {&xb, 0}, batch, {&yb, 0});
            recorder.submit_and_wait();
            QCOMPARE(recorder.dispatches(), 3u);
            std::vector<float> y(batch * rows);
            yb.download(y.data(), y.size() * 4);
            const Errors e = errors_of(y, exact_products(m, x, batch));
            note("op matmul (chunked)", e);
            QVERIFY2(e.nmse <= kMatmulNmse, qPrintable(QString("batch %1 nmse %2").arg(batch).arg(e.nmse)));
        }
        const std::vector<int32_t> ids = {99, 0, 43, 44, 45, 88, 1};
        Buffer wb(small, m.bytes.size()), ib(small, ids.size() * 4), ob(small, ids.size() * cols * 4);
        wb.upload(m.bytes.data(), m.bytes.size());
        ib.upload(ids.data(), ids.size() * 4);
        Recorder recorder(small);
        recorder.begin();
        recorder.get_rows({TensorType::Q8_0, rows, cols, {&wb, 0}}, {&ib, 0},
                          static_cast<int64_t>(ids.size()), {&ob, 0});
        recorder.submit_and_wait();
        QCOMPARE(recorder.dispatches(), 3u);
        std::vector<float> out(ids.size() * cols);
        ob.download(out.data(), out.size() * 4);
        for (size_t i = 0; i < ids.size(); ++i)
            for (int64_t k = 0; k < cols; ++k)
                QCOMPARE(out[i * cols + k], m.values[ids[i] * cols + k]);
        // An activation larger than one binding is an error that says so.
        Buffer big(small, 20000);
        recorder.begin();
        QString message;
        try {
            recorder.scale({&big, 0}, 5000, 2.0f);
        } catch (const Error& e) {
            message = e.what();
        }
        QVERIFY2(message.contains("more than one binding holds"), qPrintable(message));
        recorder.submit_and_wait();
        QVERIFY2(small.validation_errors() == 0, small.last_validation_message().c_str());
    }

    void get_rows() {
        for (TensorType t : kWeightTypes) {
            const int64_t cols = is_float_type(t) ? 77 : type_traits(t).block_elements * 2;
            const HostMatrix m = make_matrix(t, 50, cols, 3);
            const std::vector<int32_t> ids = {7, 0, 49, 7, 23, 1, 48};
            Buffer wb = upload(m.bytes, kWeightOffset);
            Buffer ib = upload(ids);
            Buffer ob(*context_, ids.size() * cols * 4);
            Recorder recorder(*context_);
            recorder.begin();
            recorder.get_rows({t, 50, cols, {&wb, kWeightOffset}}, {&ib, 0}, static_cast<int64_t>(ids.size()),
                              {&ob, 0});
            recorder.submit_and_wait();
            const std::vector<float> out = download(ob, ids.size() * cols);
            std::vector<double> exact;
            for (int32_t id : ids)
                for (int64_t k = 0; k < cols; ++k)
                    exact.push_back(m.values[id * cols + k]);
            const Errors e = errors_of(out, exact);
            note("get_rows " + type_name(t), e);
            note("op get_rows", e);
            QVERIFY2(e.max_rel <= kGetRowsMax,
                     qPrintable(type_name(t) + QString(" max error %1").arg(e.max_rel)));
        }
        check_validation();
    }

    void norms() {
        const int64_t rows = 7, dim = 999;
        const float eps = 1e-5f;
        const std::vector<float> x = normal_data(rows * dim, 11, 0.3f);
        const std::vector<float> weight = normal_data(dim, 12, 1.0f);
        const std::vector<float> bias = normal_data(dim, 13, 0.0f);
        for (int variant = 0; variant < 4; ++variant) {
            const bool layer = variant >= 2, weighted = variant % 2 == 0;
            Buffer xb = upload(x);
            Buffer wb = upload(weight, 8);
            Buffer bb = upload(bias);
            Buffer ob(*context_, x.size() * 4);
            Recorder recorder(*context_);
            recorder.begin();
            const View w = weighted ? View{&wb, 8} : View{};
            // In place for the weighted variants, into another buffer for the others.
            const View out = weighted ? View{&xb, 0} : View{&ob, 0};
            if (layer)
                recorder.layer_norm({&xb, 0}, w, weighted ? View{&bb, 0} : View{}, rows, dim, eps, out);
            else
                recorder.rms_norm({&xb, 0}, w, rows, dim, eps, out);
            recorder.submit_and_wait();
            const std::vector<float> y = download(*out.buffer, x.size());
            std::vector<double> exact(x.size());
            for (int64_t r = 0; r < rows; ++r) {
                double mean = 0, squares = 0;
                for (int64_t i = 0; i < dim; ++i)
                    mean += x[r * dim + i];
                mean = layer ? mean / dim : 0;
                for (int64_t i = 0; i < dim; ++i)
                    squares += (x[r * dim + i] - mean) * (x[r * dim + i] - mean);
                const double factor = 1 / std::sqrt(squares / dim + eps);
                for (int64_t i = 0; i < dim; ++i) {
                    double v = (x[r * dim + i] - mean) * factor;
                    if (weighted) v *= weight[i];
                    if (weighted && layer) v += bias[i];
                    exact[r * dim + i] = v;
                }
            }
            const Errors e = errors_of(y, exact);
            note(layer ? "op layer_norm" : "op rms_norm", e);
            QVERIFY2(e.max_mixed <= kElementwiseMax,
                     qPrintable(QString("variant %1: %2").arg(variant).arg(e.max_mixed)));
        }
        check_validation();
    }

    void rms_norm_add_equals_rms_norm_then_add() {
        // A post-norm added into the residual stream by the norm's own shader: bit for bit
        // rms_norm into a temporary and add, with weights that make fused multiply-adds differ.
        const int64_t rows = 5, dim = 1000;
        const std::vector<float> x = normal_data(rows * dim, 14, 0.2f);
        const std::vector<float> weight = normal_data(dim, 15, 1.0f);
        const std::vector<float> residual = normal_data(rows * dim, 16, 0.0f);
        Buffer xb = upload(x), wb = upload(weight), fused = upload(residual), apart = upload(residual),
               normed(*context_, x.size() * 4);
        Recorder recorder(*context_);
        recorder.begin();
        recorder.rms_norm_add({&xb, 0}, {&wb, 0}, rows, dim, 1e-6f, {&fused, 0});
        QCOMPARE(recorder.dispatches(), 1u);
        recorder.rms_norm({&xb, 0}, {&wb, 0}, rows, dim, 1e-6f, {&normed, 0});
        recorder.add({&apart, 0}, {&normed, 0}, rows * dim);
        recorder.submit_and_wait();
        const std::vector<float> a = download(fused, x.size()), b = download(apart, x.size());
        QVERIFY(std::memcmp(a.data(), b.data(), a.size() * 4) == 0);
        QVERIFY(a != residual);
        check_validation();
    }

    void rms_norm_heads_equals_two_rms_norms() {
        // A token's query heads and key heads normed in one dispatch, each with its own weight:
        // bit for bit two rms_norms; weights in two buffers: those two themselves.
        const int64_t q_heads = 6, k_heads = 2, dim = 128;
        const std::vector<float> x = normal_data((q_heads + k_heads) * dim, 17, 0.1f);
        std::vector<float> weights = normal_data(3 * dim, 18, 1.0f); // q's at 0, k's at 2 * dim
        const std::vector<float> k_weight(weights.begin() + 2 * dim, weights.end());
        Buffer wb = upload(weights), kwb = upload(k_weight);
        for (const bool one_buffer : {true, false}) {
            Buffer fused = upload(x), apart = upload(x);
            const View k_norm = one_buffer ? View{&wb, 2 * dim * 4} : View{&kwb, 0};
            Recorder recorder(*context_);
            recorder.begin();
            recorder.rms_norm_heads({&fused, 0}, q_heads, {&wb, 0}, k_heads, k_norm, dim, 1e-6f);
            QCOMPARE(recorder.dispatches(), one_buffer ? 1u : 2u);
            recorder.rms_norm({&apart, 0}, {&wb, 0}, q_heads, dim, 1e-6f, {&apart, 0});
            recorder.rms_norm({&apart, q_heads * dim * 4}, {&kwb, 0}, k_heads, dim, 1e-6f,
                              {&apart, q_heads * dim * 4});
            recorder.submit_and_wait();
            const std::vector<float> a = download(fused, x.size()), b = download(apart, x.size());
            QVERIFY(std::memcmp(a.data(), b.data(), a.size() * 4) == 0);
        }
        check_validation();
    }

    void elementwise_ops() {
        const int64_t rows = 9, dim = 1111, count = rows * dim;
        const std::vector<float> a = normal_data(count, 21, 0.0f), b = normal_data(count, 22, 0.5f);
        std::vector<float> a_wide = a;
        for (float& v : a_wide)
            v *= 8; // reaches the tails of tanh and exp
        const std::vector<float> bias = normal_data(dim, 23, 0.0f);
        const auto gelu = [](double v) {
            return 0.5 * v * (1 + std::tanh(0.79788456080286535588 * v * (1 + 0.044715 * v * v)));
        };
        const auto silu = [](double v) { return v / (1 + std::exp(-v)); };
        const char* names[] = {"add", "add_bias", "scale", "soft_cap", "swiglu", "geglu", "gelu"};
        for (int op = 0; op < 7; ++op) {
            Buffer xb = upload(a_wide, 4);
            Buffer yb = upload(b);
            Buffer bb = upload(bias);
            Recorder recorder(*context_);
            recorder.begin();
            const View x{&xb, 4};
            switch (op) {
            case 0:
                recorder.add(x, {&yb, 0}, count);
                break;
            case 1:
                recorder.add_bias(x, {&bb, 0}, rows, dim);
                break;
            case 2:
                recorder.scale(x, count, 0.37f);
                break;
            case 3:
                recorder.soft_cap(x, count, 3.5f);
                break;
            case 4:
                recorder.swiglu(x, {&yb, 0}, rows, dim);
                break;
            case 5:
                recorder.geglu(x, {&yb, 0}, rows, dim);
                break;
            case 6:
                recorder.gelu(x, count);
                break;
            }
            recorder.submit_and_wait();
            const std::vector<float> y = download(xb, count, 4);
            std::vector<double> exact(count);
            for (int64_t i = 0; i < count; ++i) {
                const double v = a_wide[i], w = b[i];
                switch (op) {
                case 0:
                    exact[i] = v + w;
                    break;
                case 1:
                    exact[i] = v + bias[i % dim];
                    break;
                case 2:
                    exact[i] = v * static_cast<double>(0.37f);
                    break;
                case 3:
                    exact[i] = 3.5 * std::tanh(v / 3.5);
                    break;
                case 4:
                    exact[i] = silu(v) * w;
                    break;
                case 5:
                    exact[i] = gelu(v) * w;
                    break;
                case 6:
                    exact[i] = gelu(v);
                    break;
                }
            }
            const Errors e = errors_of(y, exact);
            note(QByteArray("op ") + names[op], e);
            QVERIFY2(e.max_mixed <= kElementwiseMax,
                     qPrintable(QString("%1: %2").arg(names[op]).arg(e.max_mixed)));
        }
        check_validation();
    }

    void rope_data() {
        QTest::addColumn<bool>("neox");
        QTest::addColumn<int>("rope_dim");
        QTest::addColumn<int>("pos0");
        QTest::addColumn<bool>("factors");
        QTest::addRow("normal full") << false << 64 << 0 << false;
        QTest::addRow("neox full") << true << 64 << 3 << false;
        QTest::addRow("neox partial") << true << 32 << 0 << false;
        QTest::addRow("normal partial far") << false << 48 << 5000 << false;
        QTest::addRow("neox factors far") << true << 64 << 30000 << true;
        QTest::addRow("normal factors") << false << 64 << 17 << true;
    }

    void rope() {
        QFETCH(bool, neox);
        QFETCH(int, rope_dim);
        QFETCH(int, pos0);
        QFETCH(bool, factors);
        const int64_t n = 7, heads = 3, head_dim = 64;
        const float base = 500000.0f, freq_scale = 0.25f, attn_factor = 1.1f;
        const std::vector<float> x = normal_data(n * heads * head_dim, 31, 0.0f);
        std::vector<float> f(static_cast<size_t>(rope_dim / 2));
        for (size_t i = 0; i < f.size(); ++i)
            f[i] = 1.0f + 0.5f * static_cast<float>(i); // LongRoPE-like growing factors
        Buffer xb = upload(x);
        Buffer fb = upload(f);
        Recorder recorder(*context_);
        recorder.begin();
        recorder.rope({&xb, 0}, n, heads, head_dim, rope_dim, neox, pos0, base, freq_scale, attn_factor,
                      factors ? std::optional<View>(View{&fb, 0}) : std::nullopt);
        recorder.submit_and_wait();
        const std::vector<float> y = download(xb, x.size());
        std::vector<double> exact(x.begin(), x.end());
        const int pairs = rope_dim / 2;
        for (int64_t t = 0; t < n; ++t)
            for (int64_t h = 0; h < heads; ++h)
                for (int i = 0; i < pairs; ++i) {
                    double theta = (pos0 + t) * static_cast<double>(freq_scale) *
                                   std::pow(static_cast<double>(base), -2.0 * i / rope_dim);
                    if (factors) theta /= f[i];
                    const double c = std::cos(theta) * attn_factor, s = std::sin(theta) * attn_factor;
                    const int64_t row = (t * heads + h) * head_dim;
                    const int64_t a = row + (neox ? i : 2 * i), b = row + (neox ? i + pairs : 2 * i + 1);
                    exact[a] = x[a] * c - x[b] * s;
                    exact[b] = x[a] * s + x[b] * c;
                }
        const Errors e = errors_of(y, exact);
        note(pos0 >= 1000 ? "op rope (positions 5000+)" : "op rope", e);
        const double tolerance = kRopeMax + 4.0 * (pos0 + n) * 0x1p-24;
        QVERIFY2(e.max_rel <= tolerance,
                 qPrintable(QString("max error %1 > %2").arg(e.max_rel).arg(tolerance)));
        check_validation();
    }

    void rope_pair_equals_two_ropes() {
        // Queries and keys turned in one dispatch: bit for bit two ropes, with and without
        // factors, the keys' rows with fewer heads (GQA) and at an offset in the same buffer.
        const int64_t n = 5, heads_q = 4, heads_k = 2, head_dim = 64, pos0 = 11;
        const std::vector<float> q = normal_data(n * heads_q * head_dim, 35, 0.0f);
        const std::vector<float> k = normal_data(n * heads_k * head_dim, 36, 0.0f);
        std::vector<float> both(q);
        both.insert(both.end(), k.begin(), k.end());
        const std::vector<float> f = normal_data(head_dim / 2, 37, 1.5f);
        Buffer fb = upload(f);
        for (const bool with_factors : {false, true})
            for (const bool neox : {false, true}) {
                const std::optional<View> factors =
                    with_factors ? std::optional<View>(View{&fb, 0}) : std::nullopt;
                Buffer paired = upload(both), apart = upload(both);
                const size_t k_at = q.size() * 4;
                Recorder recorder(*context_);
                recorder.begin();
                recorder.rope_pair({&paired, 0}, heads_q, View{&paired, k_at}, heads_k, n, head_dim, 48, neox,
                                   pos0, 10000.0f, 1.0f, 1.0f, factors);
                const uint32_t paired_dispatches = recorder.dispatches();
                recorder.rope({&apart, 0}, n, heads_q, head_dim, 48, neox, pos0, 10000.0f, 1.0f, 1.0f,
                              factors);
                recorder.rope({&apart, k_at}, n, heads_k, head_dim, 48, neox, pos0, 10000.0f, 1.0f, 1.0f,
                              factors);
                recorder.submit_and_wait();
                QCOMPARE(paired_dispatches, 1u);
                const std::vector<float> a = download(paired, both.size()), b = download(apart, both.size());
                QVERIFY(std::memcmp(a.data(), b.data(), a.size() * 4) == 0);
                QVERIFY(a != both);
            }
        check_validation();
    }

    void store_kv_data() {
        QTest::addColumn<int>("key_type");
        QTest::addColumn<int>("value_type");
        QTest::addColumn<int>("head_dim");
        const auto row = [](const char* name, TensorType k, TensorType v, int head_dim) {
            QTest::addRow("%s", name) << static_cast<int>(k) << static_cast<int>(v) << head_dim;
        };
        row("f16 64", TensorType::F16, TensorType::F16, 64);
        row("f16 80", TensorType::F16, TensorType::F16, 80);
        row("q8_0 64", TensorType::Q8_0, TensorType::Q8_0, 64);
        row("q8_0 96", TensorType::Q8_0, TensorType::Q8_0, 96); // rows of 102 bytes
        row("q4_0 64", TensorType::Q4_0, TensorType::Q4_0, 64);
        row("q4_0 32", TensorType::Q4_0, TensorType::Q4_0, 32); // rows of 18 bytes
        // Keys and values of different types in the one dispatch: each part its own threads.
        row("keys f16, values q4_0", TensorType::F16, TensorType::Q4_0, 64);
        row("keys q8_0, values f16", TensorType::Q8_0, TensorType::F16, 96);
    }

    void store_kv() {
        QFETCH(int, key_type);
        QFETCH(int, value_type);
        QFETCH(int, head_dim);
        const TensorType types[2] = {static_cast<TensorType>(key_type), static_cast<TensorType>(value_type)};
        const int64_t n_ctx = 16, n_head_kv = 3, n = 7, pos0 = 5, width = n_head_kv * head_dim;
        // Keys with an outlier per row (the quantizers' extremes), values plain.
        std::vector<float> k = normal_data(n * width, 41, 0.0f), v = normal_data(n * width, 42, 0.2f);
        for (int64_t r = 0; r < n; ++r)
            k[r * width + (r * 5) % width] = -7.5f;
        // The caches start as a byte pattern that must survive outside the written positions.
        std::vector<uint8_t> patterns[2];
        for (int part = 0; part < 2; ++part) {
            patterns[part].resize(n_head_kv * n_ctx * row_bytes(types[part], head_dim));
            for (size_t i = 0; i < patterns[part].size(); ++i)
                patterns[part][i] = static_cast<uint8_t>(i * 13 + 7);
        }
        Buffer kb = upload(k), vb = upload(v);
        Buffer keys = upload(patterns[0], 8), values = upload(patterns[1], 4);
        Recorder recorder(*context_);
        recorder.begin();
        const DeviceKvLayer layer{{&keys, 8}, {&values, 4}, types[0], types[1], n_ctx, n_head_kv, head_dim};
        recorder.store_kv({&kb, 0}, {&vb, 0}, n, pos0, layer);
        QCOMPARE(recorder.dispatches(), 1u);
        recorder.submit_and_wait();
        int mismatched = 0;
        for (int part = 0; part < 2; ++part) {
            const TensorType t = types[part];
            const QuantizeRowFn quantize = reference_kernels().of(t).quantize.fn();
            const size_t head_row = row_bytes(t, head_dim);
            std::vector<uint8_t> got(patterns[part].size()), expected = patterns[part];
            (part == 0 ? keys : values).download(got.data(), got.size(), part == 0 ? 8 : 4);
            const std::vector<float>& src = part == 0 ? k : v;
            for (int64_t r = 0; r < n; ++r)
                for (int64_t h = 0; h < n_head_kv; ++h)
                    quantize(src.data() + r * width + h * head_dim,
                             expected.data() + (h * n_ctx + pos0 + r) * head_row, head_dim);
            for (size_t i = 0; i < got.size(); ++i)
                mismatched += got[i] != expected[i];
        }
        const QByteArray name = type_name(types[0]) + (types[1] != types[0] ? "/" + type_name(types[1]) : "");
        note("op store_kv " + name + " bytes differing", {static_cast<double>(mismatched), 0, 0});
        QCOMPARE(mismatched, 0);
        check_validation();
    }

    void attention_data() {
        QTest::addColumn<int>("key_type");
        QTest::addColumn<int>("value_type");
        QTest::addColumn<int>("head_dim");
        QTest::addColumn<int>("n_head");
        QTest::addColumn<int>("n_head_kv");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("n_past");
        QTest::addColumn<int>("window");
        QTest::addColumn<float>("softcap");
        QTest::addColumn<bool>("both_ways"); // one image's positions: the batch sees itself
        const int f16 = static_cast<int>(TensorType::F16), q8 = static_cast<int>(TensorType::Q8_0),
                  q4 = static_cast<int>(TensorType::Q4_0);
        QTest::addRow("f16 decode") << f16 << f16 << 64 << 4 << 4 << 1 << 40 << 0 << 0.0f << false;
        QTest::addRow("f16 decode gqa long") << f16 << f16 << 128 << 8 << 2 << 1 << 300 << 0 << 0.0f << false;
        QTest::addRow("f16 prefill mqa") << f16 << f16 << 80 << 4 << 1 << 7 << 0 << 0 << 0.0f << false;
        QTest::addRow("f16 prefill after past")
            << f16 << f16 << 64 << 6 << 2 << 16 << 70 << 0 << 0.0f << false;
        QTest::addRow("f16 window") << f16 << f16 << 64 << 4 << 2 << 7 << 90 << 5 << 0.0f << false;
        QTest::addRow("f16 window softcap") << f16 << f16 << 256 << 2 << 1 << 3 << 100 << 70 << 2.0f << false;
        QTest::addRow("q8_0 decode") << q8 << q8 << 64 << 4 << 2 << 1 << 50 << 0 << 0.0f << false;
        QTest::addRow("q8_0 prefill") << q8 << q8 << 96 << 4 << 4 << 9 << 3 << 0 << 0.0f << false;
        QTest::addRow("q4_0 decode") << q4 << q4 << 64 << 4 << 2 << 1 << 50 << 0 << 0.0f << false;
        QTest::addRow("q4_0 prefill window") << q4 << q4 << 128 << 4 << 1 << 5 << 20 << 8 << 0.0f << false;
        QTest::addRow("f16 keys q8_0 values") << f16 << q8 << 64 << 4 << 2 << 4 << 10 << 0 << 0.0f << false;
        // Long caches: the keys split across workgroups and the splits combined.
        QTest::addRow("f16 prefill long window softcap")
            << f16 << f16 << 64 << 14 << 2 << 9 << 600 << 300 << 2.0f << false;
        QTest::addRow("q8_0 decode long") << q8 << q8 << 256 << 8 << 2 << 1 << 1000 << 0 << 0.0f << false;
        // More query heads per KV head than a tile takes, at the largest head size.
        QTest::addRow("q4_0 head 512 wide group")
            << q4 << q4 << 512 << 16 << 1 << 3 << 40 << 0 << 0.0f << false;
        // One image's positions, seeing each other both ways: alone, after a past, on a window
        // (counted back from each row's own position), and split across workgroups.
        QTest::addRow("f16 image") << f16 << f16 << 64 << 4 << 2 << 37 << 0 << 0 << 0.0f << true;
        QTest::addRow("f16 image after past") << f16 << f16 << 80 << 8 << 4 << 20 << 11 << 0 << 0.0f << true;
        QTest::addRow("q8_0 image window softcap")
            << q8 << q8 << 64 << 4 << 1 << 24 << 30 << 16 << 2.0f << true;
        QTest::addRow("f16 image long past") << f16 << f16 << 64 << 4 << 2 << 16 << 700 << 0 << 0.0f << true;
    }

    void attention() {
        QFETCH(int, key_type);
        QFETCH(int, value_type);
        QFETCH(int, head_dim);
        QFETCH(int, n_head);
        QFETCH(int, n_head_kv);
        QFETCH(int, n);
        QFETCH(int, n_past);
        QFETCH(int, window);
        QFETCH(float, softcap);
        QFETCH(bool, both_ways);
        const auto kt = static_cast<TensorType>(key_type), vt = static_cast<TensorType>(value_type);
        const int64_t n_ctx = n_past + n + 3, width = int64_t{n_head_kv} * head_dim;
        const int64_t n_keys = n_past + n;
        // The cache as the CPU writes it, from rows of keys and values.
        const std::vector<float> k = normal_data(n_keys * width, 51, 0.0f),
                                 v = normal_data(n_keys * width, 52, 0.0f);
        const std::vector<float> q = normal_data(int64_t{n} * n_head * head_dim, 53, 0.0f);
        const size_t key_row = row_bytes(kt, head_dim), value_row = row_bytes(vt, head_dim);
        std::vector<uint8_t> keys(n_head_kv * n_ctx * key_row), values(n_head_kv * n_ctx * value_row);
        std::vector<float> key_values(n_head_kv * n_ctx * head_dim), value_values(key_values.size());
        for (int64_t j = 0; j < n_keys; ++j)
            for (int64_t h = 0; h < n_head_kv; ++h) {
                uint8_t* kr = keys.data() + (h * n_ctx + j) * key_row;
                uint8_t* vr = values.data() + (h * n_ctx + j) * value_row;
                reference_kernels().of(kt).quantize.fn()(k.data() + j * width + h * head_dim, kr, head_dim);
                reference_kernels().of(vt).quantize.fn()(v.data() + j * width + h * head_dim, vr, head_dim);
                reference_kernels().of(kt).dequantize.fn()(kr, key_values.data() + (h * n_ctx + j) * head_dim,
                                                           head_dim);
                reference_kernels().of(vt).dequantize.fn()(
                    vr, value_values.data() + (h * n_ctx + j) * head_dim, head_dim);
            }
        Buffer kb = upload(keys, 16), vb = upload(values, 4), qb = upload(q, 4);
        Buffer ob(*context_, q.size() * 4);
        const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
        Recorder recorder(*context_);
        recorder.begin();
        const DeviceKvLayer layer{{&kb, 16}, {&vb, 4}, kt, vt, n_ctx, n_head_kv, head_dim};
        recorder.attention({&qb, 4}, n, n_past, n_head, layer, scale, {window, softcap}, both_ways, {&ob, 0});
        recorder.submit_and_wait();
        const KernelId kernel = kernel_that_ran(recorder, "attention");
        QVERIFY2(kernel_name(kernel).backend.device == Device::Vulkan, "attention ran no Vulkan candidate");
        ran_.insert(kernel);
        const std::vector<float> out = download(ob, q.size());
        std::vector<double> exact(q.size());
        double value_scale = 0;
        for (float x : value_values)
            value_scale = std::max(value_scale, std::fabs(static_cast<double>(x)));
        for (int64_t p = 0; p < n; ++p)
            for (int64_t h = 0; h < n_head; ++h) {
                const int64_t kv = h / (n_head / n_head_kv), own = n_past + p + 1;
                const int64_t seen = both_ways ? n_past + n : own;
                const int64_t first = window > 0 && own > window ? own - window : 0;
                std::vector<double> scores;
                double top = -INFINITY;
                for (int64_t j = first; j < seen; ++j) {
                    double s = 0;
                    for (int64_t d = 0; d < head_dim; ++d)
                        s += static_cast<double>(q[(p * n_head + h) * head_dim + d]) *
                             key_values[(kv * n_ctx + j) * head_dim + d];
                    s *= scale;
                    if (softcap > 0) s = softcap * std::tanh(s / softcap);
                    scores.push_back(s);
                    top = std::max(top, s);
                }
                double total = 0;
                for (double& s : scores)
                    total += (s = std::exp(s - top));
                for (int64_t d = 0; d < head_dim; ++d) {
                    double sum = 0;
                    for (int64_t j = first; j < seen; ++j)
                        sum += scores[j - first] * value_values[(kv * n_ctx + j) * head_dim + d];
                    exact[(p * n_head + h) * head_dim + d] = sum / total;
                }
            }
        Errors e = errors_of(out, exact);
        double worst = 0;
        for (size_t i = 0; i < out.size(); ++i)
            worst = worse(worst, std::fabs(out[i] - exact[i]) / value_scale);
        e.max_rel = worst;
        note("op attention " + type_name(kt) + "/" + type_name(vt), e);
        note("op attention " + name_of(kernel_name(kernel).name), e);
        QVERIFY2(worst <= kAttentionMax, qPrintable(QString("max error %1 of max |value|").arg(worst)));
        check_validation();
    }

    void store_kv_then_attention_in_one_pass() {
        // The barrier between store_kv and attention in one command buffer: decode one token
        // after a prefill of 9, the cache written on the device only.
        const int64_t head_dim = 64, n_head = 4, n_head_kv = 2, n_ctx = 32, width = n_head_kv * head_dim;
        const std::vector<float> k = normal_data(10 * width, 61, 0.0f), v = normal_data(10 * width, 62, 0.0f);
        const std::vector<float> q = normal_data(10 * n_head * head_dim, 63, 0.0f);
        Buffer kb = upload(k), vb = upload(v), qb = upload(q);
        Buffer keys(*context_, n_head_kv * n_ctx * head_dim * 2), values(*context_, keys.size());
        Buffer prefill_out(*context_, 9 * n_head * head_dim * 4),
            decode_out(*context_, n_head * head_dim * 4);
        const DeviceKvLayer layer{{&keys, 0}, {&values, 0}, TensorType::F16, TensorType::F16,
                                  n_ctx,      n_head_kv,    head_dim};
        Recorder recorder(*context_);
        recorder.begin();
        recorder.store_kv({&kb, 0}, {&vb, 0}, 9, 0, layer);
        recorder.attention({&qb, 0}, 9, 0, n_head, layer, 0.125f, {}, false, {&prefill_out, 0});
        recorder.store_kv({&kb, 9 * width * 4}, {&vb, 9 * width * 4}, 1, 9, layer);
        recorder.attention({&qb, 9 * n_head * head_dim * 4}, 1, 9, n_head, layer, 0.125f, {}, false,
                           {&decode_out, 0});
        recorder.submit_and_wait();
        QCOMPARE(recorder.dispatches(), 4u); // store_kv writes keys and values in one dispatch
        // Against the same attention over a 10-row prefill: row 9 of that is the decode.
        Buffer all_out(*context_, 10 * n_head * head_dim * 4);
        recorder.begin();
        recorder.attention({&qb, 0}, 10, 0, n_head, layer, 0.125f, {}, false, {&all_out, 0});
        recorder.submit_and_wait();
        const std::vector<float> decode = download(decode_out, n_head * head_dim);
        const std::vector<float> whole = download(all_out, n_head * head_dim, 9 * n_head * head_dim * 4);
        QCOMPARE(decode, whole);
        const std::vector<float> prefill = download(prefill_out, 9 * n_head * head_dim);
        const std::vector<float> whole_prefill = download(all_out, 9 * n_head * head_dim);
        QCOMPARE(prefill, whole_prefill);
        const std::vector<OpTiming> timings = recorder.timings();
        QCOMPARE(timings.size(), size_t{1});
        QCOMPARE(timings[0].name, std::string("attention"));
        QCOMPARE(kernel_name(timings[0].kernel).name, std::string_view("attention")); // short: one pass
        QCOMPARE(timings[0].dispatches, 1u);
        check_validation();
    }

    void matmul_add_equals_matmul_then_add() {
        // y += W x in the matmul's own shader: bit for bit what matmul into a temporary and add
        // give, with the mat-vec shader (batches up to kMatVecMaxBatch) and the mat-mat one.
        const int64_t rows = 70, cols = 512;
        const HostMatrix m = make_matrix(TensorType::Q4_K, rows, cols, 41);
        Buffer wb = upload(m.bytes);
        const DeviceMatrix w{TensorType::Q4_K, rows, cols, {&wb, 0}};
        for (int64_t batch : {int64_t{1}, int64_t{3}, kMatVecMaxBatch + 5}) {
            const std::vector<float> x = normal_data(batch * cols, 42, 0.0f);
            const std::vector<float> y0 = normal_data(batch * rows, 43, 0.0f);
            Buffer xb = upload(x);
            Buffer fused = upload(y0), separate = upload(y0), product(*context_, size_t(batch * rows) * 4);
            Recorder recorder(*context_);
            recorder.begin();
            recorder.matmul_add(w, {&xb, 0}, batch, {&fused, 0});
            recorder.matmul(w, {&xb, 0}, batch, {&product, 0});
            recorder.add({&separate, 0}, {&product, 0}, batch * rows);
            recorder.submit_and_wait();
            const std::vector<float> a = download(fused, size_t(batch * rows));
            const std::vector<float> b = download(separate, size_t(batch * rows));
            QVERIFY2(std::memcmp(a.data(), b.data(), a.size() * 4) == 0,
                     qPrintable(QString("batch %1").arg(batch)));
            QVERIFY(a != y0);
        }
        check_validation();
    }

    void matmul_vec_reads_aligned_blocks_in_16_byte_loads() {
        // Q4_K and Q5_K weights at a 16-byte aligned offset are read in uvec4 loads, at any other
        // offset word by word: the same words, so the same sums, bit for bit.
        for (TensorType t : {TensorType::Q4_K, TensorType::Q5_K})
            for (int64_t batch : {1, 2}) {
                const int64_t rows = 37, cols = 1024;
                const HostMatrix m = make_matrix(t, rows, cols, 61);
                const std::vector<float> x = normal_data(batch * cols, 62, 0.0f);
                Buffer xb = upload(x);
                std::vector<float> results[2];
                int i = 0;
                for (size_t offset : {size_t{0}, kWeightOffset}) {
                    Buffer wb = upload(m.bytes, offset);
                    Buffer yb(*context_, size_t(batch * rows) * 4);
                    Recorder recorder(*context_);
                    recorder.begin();
                    recorder.matmul({t, rows, cols, {&wb, offset}}, {&xb, 0}, batch, {&yb, 0});
                    recorder.submit_and_wait();
                    results[i++] = download(yb, size_t(batch * rows));
                }
                QVERIFY2(results[0] == results[1],
                         type_name(t) + " batch " + QByteArray::number(qlonglong(batch)));
                const Errors e = errors_of(results[0], exact_products(m, x, batch));
                QVERIFY2(e.nmse <= kMatmulNmse, qPrintable(QString("nmse %1").arg(e.nmse)));
            }
        check_validation();
    }

    void matmul_bias_equals_matmul_then_add_bias() {
        // The bias added in the product's own shader: bit for bit matmul then add_bias, with the
        // mat-vec shader and the mat-mat one, and over a matrix bound in chunks of rows.
        const int64_t rows = 70, cols = 512;
        const HostMatrix m = make_matrix(TensorType::Q8_0, rows, cols, 81);
        const std::vector<float> bias = normal_data(rows + 3, 82, 0.0f);
        Buffer wb = upload(m.bytes), bb = upload(bias);
        const DeviceMatrix w{TensorType::Q8_0, rows, cols, {&wb, 0}};
        for (int64_t batch : {int64_t{1}, int64_t{3}, kMatVecMaxBatch + 5}) {
            const std::vector<float> x = normal_data(batch * cols, 83, 0.0f);
            Buffer xb = upload(x);
            Buffer fused(*context_, size_t(batch * rows) * 4), separate(*context_, size_t(batch * rows) * 4);
            Recorder recorder(*context_);
            recorder.begin();
            recorder.matmul_bias(w, {&xb, 0}, batch, {&fused, 0}, {&bb, 12}); // the bias from element 3
            recorder.matmul(w, {&xb, 0}, batch, {&separate, 0});
            recorder.add_bias({&separate, 0}, {&bb, 12}, batch, rows);
            recorder.submit_and_wait();
            const std::vector<float> a = download(fused, size_t(batch * rows));
            const std::vector<float> b = download(separate, size_t(batch * rows));
            QVERIFY2(std::memcmp(a.data(), b.data(), a.size() * 4) == 0,
                     qPrintable(QString("batch %1").arg(batch)));
        }
        // Rows bound in chunks: each chunk's rows take their own part of the bias.
        ContextOptions options;
        options.validation = true;
        options.max_binding_bytes = 16 * m.row_bytes; // 16 rows a binding: 5 chunks
        Context chunked(options);
        Buffer cw(chunked, m.bytes.size() + 4), cb(chunked, bias.size() * 4), cx(chunked, cols * 4),
            cy(chunked, rows * 4);
        cw.upload(m.bytes.data(), m.bytes.size());
        cb.upload(bias.data(), bias.size() * 4);
        const std::vector<float> x = normal_data(cols, 84, 0.0f);
        cx.upload(x.data(), cols * 4);
        Recorder recorder(chunked);
        recorder.begin();
        recorder.matmul_bias({TensorType::Q8_0, rows, cols, {&cw, 0}}, {&cx, 0}, 1, {&cy, 0}, {&cb, 0});
        recorder.submit_and_wait();
        std::vector<float> y(rows);
        cy.download(y.data(), rows * 4);
        QVERIFY2(chunked.validation_errors() == 0, chunked.last_validation_message().c_str());
        std::vector<double> exact = exact_products(m, x, 1);
        for (int64_t r = 0; r < rows; ++r)
            exact[r] += bias[r];
        const Errors e = errors_of(y, exact);
        QVERIFY2(e.nmse <= kMatmulNmse, qPrintable(QString("nmse %1").arg(e.nmse)));
        check_validation();
    }

    void matmul_glu_equals_matmuls_then_glu() {
        // A gated FFN's gate and up products with the activation, in one mat-vec dispatch where
        // the two matrices lie in one buffer: bit for bit matmul, matmul and swiglu (geglu), for
        // any rows per workgroup (odd row counts: a last workgroup of one pair) and with or
        // without subgroup sums; in separate buffers, or for a mat-mat batch, those three ops
        // themselves. Near the exact values too.
        const int64_t rows = 37, cols = 512;
        struct Setting {
            uint32_t per_group;
            bool subgroups;
            bool one_subgroup; // a workgroup of one subgroup (a GPU's 32 threads)
        };
        for (const Setting setting : {Setting{0, true, false}, Setting{1, true, false},
                                      Setting{8, false, false}, Setting{4, true, true}}) {
            ContextOptions options;
            options.validation = true;
            options.matvec_rows = setting.per_group;
            options.subgroup_operations = setting.subgroups;
            if (setting.one_subgroup)
                options.matvec_workgroup = Context(ContextOptions{}).device().subgroup_size;
            Context context(options);
            const auto put = [&](const auto& data) {
                Buffer b(context, data.size() * sizeof(data[0]) + 4);
                b.upload(data.data(), data.size() * sizeof(data[0]));
                return b;
            };
            // Every shader variant with the planner's rows; the others with Q4_K (each context
            // builds its own pipelines: lavapipe takes a while for each).
            std::vector<TensorType> types{TensorType::Q4_K};
            if (setting.per_group == 0)
                types = {TensorType::Q4_K, TensorType::Q6_K, TensorType::Q8_0, TensorType::F16};
            for (TensorType t : types) {
                const HostMatrix gate = make_matrix(t, rows, cols, 91), up = make_matrix(t, rows, cols, 92);
                // Both in one buffer, the up matrix 256-byte aligned after the gate's (as
                // VulkanWeights uploads them), at an offset that is not.
                const size_t gate_at = 48;
                const size_t up_at = (gate_at + gate.bytes.size() + 255) / 256 * 256;
                std::vector<uint8_t> both(up_at + up.bytes.size());
                std::memcpy(both.data() + gate_at, gate.bytes.data(), gate.bytes.size());
                std::memcpy(both.data() + up_at, up.bytes.data(), up.bytes.size());
                Buffer wb = put(both), gb = put(gate.bytes), ub = put(up.bytes);
                const DeviceMatrix g{t, rows, cols, {&wb, gate_at}}, u{t, rows, cols, {&wb, up_at}};
                const DeviceMatrix g_apart{t, rows, cols, {&gb, 0}}, u_apart{t, rows, cols, {&ub, 0}};
                for (const Recorder::Glu glu : {Recorder::Glu::Silu, Recorder::Glu::GeluTanh})
                    for (int64_t batch : {int64_t{1}, int64_t{3}, kMatVecMaxBatch + 5}) {
                        const QString where =
                            QString("%1, %2 rows a workgroup%3, %4, batch %5")
                                .arg(type_name(t).constData())
                                .arg(setting.per_group)
                                .arg(setting.subgroups ? (setting.one_subgroup ? ", one subgroup" : "")
                                                       : ", no subgroup sums")
                                .arg(glu == Recorder::Glu::Silu ? "silu" : "gelu")
                                .arg(batch);
                        const std::vector<float> x = normal_data(batch * cols, 93, 0.0f);
                        Buffer xb = put(x);
                        const size_t out_bytes = size_t(batch * rows) * 4;
                        Buffer fused(context, out_bytes), scratch(context, out_bytes),
                            apart(context, out_bytes), apart_scratch(context, out_bytes),
                            g_out(context, out_bytes), u_out(context, out_bytes);
                        Recorder recorder(context);
                        recorder.begin();
                        recorder.matmul_glu(g, u, {&xb, 0}, batch, glu, {&fused, 0}, {&scratch, 0});
                        const uint32_t fused_dispatches = recorder.dispatches();
                        recorder.matmul_glu(g_apart, u_apart, {&xb, 0}, batch, glu, {&apart, 0},
                                            {&apart_scratch, 0});
                        const uint32_t apart_dispatches = recorder.dispatches() - fused_dispatches;
                        recorder.matmul(g, {&xb, 0}, batch, {&g_out, 0});
                        recorder.matmul(u, {&xb, 0}, batch, {&u_out, 0});
                        if (glu == Recorder::Glu::Silu)
                            recorder.swiglu({&g_out, 0}, {&u_out, 0}, batch, rows);
                        else
                            recorder.geglu({&g_out, 0}, {&u_out, 0}, batch, rows);
                        recorder.submit_and_wait();
                        QVERIFY2(fused_dispatches == (batch <= kMatVecMaxBatch ? 1u : 3u), qPrintable(where));
                        QVERIFY2(apart_dispatches == 3u, qPrintable(where));
                        const std::vector<float> a = download_from(fused, out_bytes);
                        const std::vector<float> b = download_from(apart, out_bytes);
                        const std::vector<float> c = download_from(g_out, out_bytes);
                        QVERIFY2(std::memcmp(a.data(), c.data(), out_bytes) == 0, qPrintable(where));
                        QVERIFY2(std::memcmp(b.data(), c.data(), out_bytes) == 0, qPrintable(where));
                        const std::vector<double> eg = exact_products(gate, x, batch);
                        const std::vector<double> eu = exact_products(up, x, batch);
                        std::vector<double> exact(eg.size());
                        for (size_t i = 0; i < exact.size(); ++i) {
                            const double v = eg[i];
                            const double act =
                                glu == Recorder::Glu::Silu
                                    ? v / (1 + std::exp(-v))
                                    : 0.5 * v *
                                          (1 + std::tanh(0.7978845608028654 * v * (1 + 0.044715 * v * v)));
                            exact[i] = act * eu[i];
                        }
                        const Errors e = errors_of(a, exact);
                        QVERIFY2(e.nmse <= 1e-9, qPrintable(where + QString(": nmse %1").arg(e.nmse)));
                    }
            }
            QVERIFY2(context.validation_errors() == 0, context.last_validation_message().c_str());
        }
    }

    void matvec_rows_per_workgroup_as_set() {
        // Decode's mat-vec with each row count the option allows: the same products.
        const int64_t rows = 37, cols = 512;
        const HostMatrix m = make_matrix(TensorType::Q6_K, rows, cols, 71);
        const std::vector<float> x = normal_data(cols, 72, 0.0f);
        const std::vector<double> exact = exact_products(m, x, 1);
        // The last: a workgroup of one subgroup, as a GPU's 32 threads are (no shared memory).
        const uint32_t subgroup = Context(ContextOptions{}).device().subgroup_size;
        const std::pair<uint32_t, uint32_t> settings[] = {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {4, subgroup}};
        for (const auto& [per_group, threads] : settings) {
            ContextOptions options;
            options.validation = true;
            options.matvec_rows = per_group;
            options.matvec_workgroup = threads;
            Context context(options);
            Buffer wb(context, m.bytes.size() + 4), xb(context, cols * 4), yb(context, rows * 4);
            wb.upload(m.bytes.data(), m.bytes.size());
            xb.upload(x.data(), cols * 4);
            Recorder recorder(context);
            recorder.begin();
            recorder.matmul({TensorType::Q6_K, rows, cols, {&wb, 0}}, {&xb, 0}, 1, {&yb, 0});
            recorder.submit_and_wait();
            std::vector<float> y(rows);
            yb.download(y.data(), rows * 4);
            const Errors e = errors_of(y, exact);
            QVERIFY2(
                e.nmse <= kMatmulNmse,
                qPrintable(QString("%1 rows, %2 threads: nmse %3").arg(per_group).arg(threads).arg(e.nmse)));
            QVERIFY2(context.validation_errors() == 0, context.last_validation_message().c_str());
        }
        ContextOptions bad;
        bad.matvec_rows = 3;
        QVERIFY_THROWS_EXCEPTION(Error, Context{bad});
        ContextOptions bad_threads;
        bad_threads.matvec_workgroup = 48;
        QVERIFY_THROWS_EXCEPTION(Error, Context{bad_threads});
    }

    void a_pass_goes_to_the_device_in_batches() {
        // One command per batch: each later buffer's first barrier orders it after the ones
        // submitted before. A batch runs once submitted, also when its pass is given up; the
        // next pass waits for it.
        ContextOptions options;
        options.validation = true;
        options.dispatches_per_submit = 1;
        Context context(options);
        const int64_t n = 1000;
        const std::vector<float> a = normal_data(n, 51, 0.0f);
        Buffer x(context, n * 4), y(context, n * 4);
        x.upload(a.data(), n * 4);
        y.upload(a.data(), n * 4);
        {
            Recorder given_up(context);
            given_up.begin();
            for (int i = 0; i < 5; ++i)
                given_up.scale({&y, 0}, n, 3.0f);
        } // destroyed with batches in flight: it waits for them
        Recorder recorder(context);
        recorder.begin();
        recorder.scale({&x, 0}, n, 7.0f); // gone to the device already; the pass is begun again
        recorder.begin();
        for (int i = 0; i < 6; ++i) {
            recorder.scale({&x, 0}, n, 2.0f);  // x = 2x
            recorder.add({&x, 0}, {&x, 0}, n); // x = x + x
        }
        recorder.submit_and_wait();
        QCOMPARE(recorder.dispatches(), uint32_t{12});
        std::vector<float> out(n);
        x.download(out.data(), n * 4);
        for (int64_t i = 0; i < n; ++i)
            QCOMPARE(out[i], (a[i] * 7.0f) * 4096.0f); // (2 * 2)^6: exact in binary floating point
        QCOMPARE(context.validation_errors(), uint64_t{0});
    }

    void dependent_and_independent_ops_in_one_pass() {
        // Ops on parts of one buffer: the recorder puts barriers only between ops that depend
        // on each other (read what another wrote, or write what another read or wrote), and
        // the validation layer's synchronization checks report any hazard left.
        const int64_t n = 256, rows = 40;
        const std::vector<float> a = normal_data(n, 91, 0.0f), b = normal_data(n, 92, 0.0f);
        const HostMatrix m = make_matrix(TensorType::Q8_0, rows, n, 93);
        Buffer data(*context_, (2 * n + 2 * rows) * 4);
        data.upload(a.data(), n * 4, 0);
        data.upload(b.data(), n * 4, n * 4);
        Buffer wb = upload(m.bytes);
        const View x1{&data, 0}, x2{&data, size_t(n) * 4}, y{&data, size_t(2 * n) * 4},
            z{&data, size_t(2 * n + rows) * 4};
        Recorder recorder(*context_);
        recorder.begin();
        recorder.scale(x1, n, 2.0f);                                      // x1 = 2a
        recorder.scale(x2, n, 3.0f);                                      // x2 = 3b, independent of the first
        recorder.add(x1, x2, n);                                          // x1 = 2a + 3b, after both
        recorder.matmul({TensorType::Q8_0, rows, n, {&wb, 0}}, x1, 1, y); // y = W x1
        recorder.scale(x1, n, 0.5f); // x1 halved after the matmul read it
        recorder.copy(y, z, rows * 4);
        recorder.scale(z, rows, -1.0f); // z = -y
        recorder.submit_and_wait();
        std::vector<float> out(2 * n + 2 * rows);
        data.download(out.data(), out.size() * 4);
        for (int64_t i = 0; i < n; ++i) {
            const double x = 2.0 * a[i] + 3.0 * b[i];
            QVERIFY(std::fabs(out[i] - x / 2) <= 1e-5 * std::max(1.0, std::fabs(x)));
            QVERIFY(std::fabs(out[n + i] - 3.0 * b[i]) <= 1e-5 * std::max(1.0, std::fabs(3.0 * b[i])));
        }
        std::vector<double> exact(rows);
        double scale = 0;
        for (int64_t r = 0; r < rows; ++r) {
            for (int64_t k = 0; k < n; ++k)
                exact[r] += static_cast<double>(m.values[r * n + k]) * (2.0 * a[k] + 3.0 * b[k]);
            scale = std::max(scale, std::fabs(exact[r]));
        }
        for (int64_t r = 0; r < rows; ++r) {
            QVERIFY(std::fabs(out[2 * n + r] - exact[r]) <= 1e-5 * scale);
            QCOMPARE(out[2 * n + rows + r], -out[2 * n + r]);
        }
        check_validation();
    }

    void mixture_of_experts() {
        const int64_t n = 7, n_expert = 60, k = 4, rows_per_expert = 24, dim = rows_per_expert;
        const std::vector<float> logits = normal_data(n * n_expert, 71, 0.0f);
        for (bool renormalize : {false, true}) {
            Buffer lb = upload(logits, 4);
            Buffer ib(*context_, n * k * 4), wb(*context_, n * k * 4);
            Recorder recorder(*context_);
            recorder.begin();
            recorder.topk_softmax({&lb, 4}, n, n_expert, k, renormalize, {&ib, 0}, {&wb, 0});
            recorder.submit_and_wait();
            std::vector<int32_t> ids(n * k);
            ib.download(ids.data(), ids.size() * 4);
            const std::vector<float> weights = download(wb, n * k);
            std::vector<double> exact;
            for (int64_t r = 0; r < n; ++r) {
                std::vector<int> order(n_expert);
                std::iota(order.begin(), order.end(), 0);
                const float* l = logits.data() + r * n_expert;
                std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return l[a] > l[b]; });
                double total = 0, chosen = 0;
                const double top = l[order[0]];
                for (int e = 0; e < n_expert; ++e)
                    total += std::exp(l[e] - top);
                for (int j = 0; j < k; ++j)
                    chosen += std::exp(l[order[j]] - top) / total;
                for (int j = 0; j < k; ++j) {
                    QCOMPARE(ids[r * k + j], order[j]);
                    const double p = std::exp(l[order[j]] - top) / total;
                    exact.push_back(renormalize ? p / chosen : p);
                }
            }
            const Errors e = errors_of(weights, exact);
            note("op topk_softmax", e);
            QVERIFY2(e.max_mixed <= kElementwiseMax, qPrintable(QString("weights: %1").arg(e.max_mixed)));
        }

        // The chosen experts' outputs' weighted sum (their rows: matmul_experts).
        const std::vector<float> outputs = normal_data(n * k * dim, 75, 0.0f),
                                 y0 = normal_data(n * dim, 76, 0.0f);
        const std::vector<float> weights = normal_data(n * k, 77, 0.5f);
        Buffer xb = upload(outputs), wb = upload(weights), yb = upload(y0, 8);
        Recorder recorder(*context_);
        recorder.begin();
        recorder.weighted_sum_experts({&xb, 0}, {&wb, 0}, n, k, dim, {&yb, 8});
        recorder.submit_and_wait();
        const std::vector<float> y = download(yb, n * dim, 8);
        std::vector<double> exact(n * dim);
        for (int64_t b = 0; b < n; ++b)
            for (int64_t d = 0; d < dim; ++d) {
                double sum = y0[b * dim + d];
                for (int64_t j = 0; j < k; ++j)
                    sum += static_cast<double>(weights[b * k + j]) * outputs[(b * k + j) * dim + d];
                exact[b * dim + d] = sum;
            }
        const Errors e = errors_of(y, exact);
        note("op weighted_sum_experts", e);
        QVERIFY2(e.max_mixed <= kElementwiseMax, qPrintable(QString("weighted sum: %1").arg(e.max_mixed)));
        check_validation();
    }

    void matmul_experts_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("candidate"); // its index in the type's list
        QTest::addColumn<int>("n");
        for (TensorType t : kWeightTypes) {
            const VulkanCandidates& candidates = vulkan_kernels().of(t).matmul_experts;
            QVERIFY2(!candidates.empty(), type_name(t) + " has no Vulkan matmul_experts candidate");
            for (int i = 0; i < candidates.size(); ++i) {
                const Candidate<ShaderPlan>& c = candidates.begin()[i];
                // Decode and a prefill of 7, 4 experts each (the guard's batch: rows of experts).
                for (int n : {1, 7})
                    if (c.guard.holds(
                            {.batch = 4 * n, .device = Device::Vulkan, .features = c.guard.features}))
                        QTest::addRow("%s %s n %d", type_name(t).constData(), name_of(c.name).constData(), n)
                            << static_cast<int>(t) << i << n;
            }
        }
    }

    void matmul_experts() {
        // The chosen experts' rows of a 3-D tensor of 6 experts.
        QFETCH(int, type);
        QFETCH(int, candidate);
        QFETCH(int, n);
        const auto t = static_cast<TensorType>(type);
        const Candidate<ShaderPlan>& c = vulkan_kernels().of(t).matmul_experts.begin()[candidate];
        Context* context = context_with(c.guard.features);
        if (!context) QSKIP("the device lacks the features this candidate needs");
        const UsingContext using_context(*this, context);
        const int64_t k = 4, rows_per_expert = 24;
        std::vector<int32_t> ids(n * k);
        std::mt19937 rng(72);
        for (int64_t r = 0; r < n; ++r) {
            std::vector<int> all(6);
            std::iota(all.begin(), all.end(), 0);
            std::shuffle(all.begin(), all.end(), rng);
            for (int j = 0; j < k; ++j)
                ids[r * k + j] = all[j];
        }
        const int64_t cols = type_traits(t).block_elements == QK_K ? 256 : 96;
        const HostMatrix m = make_matrix(t, 6 * rows_per_expert, cols, 73);
        const std::vector<float> x = normal_data(n * cols, 74, 0.0f);
        Buffer mb = upload(m.bytes, kWeightOffset), xb = upload(x), ib = upload(ids);
        Buffer yb(*context_, n * k * rows_per_expert * 4);
        Recorder recorder(*context_);
        recorder.begin();
        recorder.matmul_experts({t, m.rows, cols, {&mb, kWeightOffset}}, rows_per_expert, {&xb, 0}, n,
                                {&ib, 0}, k, {&yb, 0});
        recorder.submit_and_wait();
        QVERIFY(ran(recorder, "matmul_experts", c));
        const std::vector<float> y = download(yb, n * k * rows_per_expert);
        std::vector<double> exact;
        for (int64_t b = 0; b < n; ++b)
            for (int64_t j = 0; j < k; ++j)
                for (int64_t r = 0; r < rows_per_expert; ++r) {
                    const int64_t row = ids[b * k + j] * rows_per_expert + r;
                    double sum = 0;
                    for (int64_t col = 0; col < cols; ++col)
                        sum += static_cast<double>(m.values[row * cols + col]) * x[b * cols + col];
                    exact.push_back(sum);
                }
        const Errors e = errors_of(y, exact);
        note("matmul_experts " + type_name(t), e);
        note("op matmul_experts", e);
        note("op matmul_experts " + name_of(c.name), e);
        QVERIFY2(e.nmse <= kMatmulNmse && e.max_rel <= kMatmulMax,
                 qPrintable(QString("nmse %1 max %2").arg(e.nmse).arg(e.max_rel)));
        check_validation();
    }

    void matmul_experts_glu_equals_matmul_experts_then_glu() {
        // The chosen experts' gate and up rows with the activation in one dispatch, where the two
        // tensors lie in one buffer: bit for bit two matmul_experts and swiglu (geglu), each
        // token with its own experts; in separate buffers those three ops themselves.
        const int64_t k = 4, rows_per_expert = 24, n_expert = 6;
        for (TensorType t : {TensorType::Q4_K, TensorType::Q8_0})
            for (int64_t n : {int64_t{1}, int64_t{3}})
                for (const Recorder::Glu glu : {Recorder::Glu::Silu, Recorder::Glu::GeluTanh}) {
                    const QString where = QString("%1 n %2 %3")
                                              .arg(type_name(t).constData())
                                              .arg(n)
                                              .arg(glu == Recorder::Glu::Silu ? "silu" : "gelu");
                    std::vector<int32_t> ids(n * k);
                    for (int64_t i = 0; i < n * k; ++i)
                        ids[i] = static_cast<int32_t>((i * 5 + i / k) % n_expert);
                    const int64_t cols = 256;
                    const HostMatrix gate = make_matrix(t, n_expert * rows_per_expert, cols, 75);
                    const HostMatrix up = make_matrix(t, n_expert * rows_per_expert, cols, 76);
                    // The up tensor 256-byte aligned after the gate's, which starts 16-byte aligned.
                    const size_t gate_at = 48;
                    const size_t up_at = (gate_at + gate.bytes.size() + 255) / 256 * 256;
                    std::vector<uint8_t> both(up_at + up.bytes.size());
                    std::memcpy(both.data() + gate_at, gate.bytes.data(), gate.bytes.size());
                    std::memcpy(both.data() + up_at, up.bytes.data(), up.bytes.size());
                    const std::vector<float> x = normal_data(n * cols, 77, 0.0f);
                    Buffer wb = upload(both), gb = upload(gate.bytes), ub = upload(up.bytes), xb = upload(x),
                           ib = upload(ids);
                    const size_t out = size_t(n * k * rows_per_expert);
                    Buffer fused(*context_, out * 4), scratch(*context_, out * 4), apart(*context_, out * 4),
                        apart_scratch(*context_, out * 4), g_out(*context_, out * 4),
                        u_out(*context_, out * 4);
                    const DeviceMatrix g{t, gate.rows, cols, {&wb, gate_at}},
                        u{t, up.rows, cols, {&wb, up_at}};
                    Recorder recorder(*context_);
                    recorder.begin();
                    recorder.matmul_experts_glu(g, u, rows_per_expert, {&xb, 0}, n, {&ib, 0}, k, glu,
                                                {&fused, 0}, {&scratch, 0});
                    const uint32_t fused_dispatches = recorder.dispatches();
                    recorder.matmul_experts_glu({t, gate.rows, cols, {&gb, 0}}, {t, up.rows, cols, {&ub, 0}},
                                                rows_per_expert, {&xb, 0}, n, {&ib, 0}, k, glu, {&apart, 0},
                                                {&apart_scratch, 0});
                    const uint32_t apart_dispatches = recorder.dispatches() - fused_dispatches;
                    recorder.matmul_experts(g, rows_per_expert, {&xb, 0}, n, {&ib, 0}, k, {&g_out, 0});
                    recorder.matmul_experts(u, rows_per_expert, {&xb, 0}, n, {&ib, 0}, k, {&u_out, 0});
                    if (glu == Recorder::Glu::Silu)
                        recorder.swiglu({&g_out, 0}, {&u_out, 0}, n * k, rows_per_expert);
                    else
                        recorder.geglu({&g_out, 0}, {&u_out, 0}, n * k, rows_per_expert);
                    recorder.submit_and_wait();
                    QVERIFY2(fused_dispatches == 1u, qPrintable(where));
                    QVERIFY2(apart_dispatches == 3u, qPrintable(where));
                    const std::vector<float> a = download(fused, out), b = download(apart, out),
                                             c = download(g_out, out);
                    QVERIFY2(std::memcmp(a.data(), c.data(), out * 4) == 0, qPrintable(where));
                    QVERIFY2(std::memcmp(b.data(), c.data(), out * 4) == 0, qPrintable(where));
                    QVERIFY2(std::any_of(a.begin(), a.end(), [](float v) { return v != 0; }),
                             qPrintable(where));
                }
        check_validation();
    }

    void copy_and_timings() {
        std::vector<uint8_t> bytes(1000);
        for (size_t i = 0; i < bytes.size(); ++i)
            bytes[i] = static_cast<uint8_t>(i * 3);
        Buffer src = upload(bytes), dst(*context_, 1000, Memory::HostVisible);
        dst.fill_zero();
        Recorder recorder(*context_);
        recorder.begin();
        recorder.copy({&src, 1}, {&dst, 3}, 997);
        recorder.submit_and_wait();
        std::vector<uint8_t> got(1000);
        dst.download(got.data(), got.size());
        QCOMPARE(got[0], uint8_t{0});
        QVERIFY(std::equal(bytes.begin() + 1, bytes.begin() + 998, got.begin() + 3));
        const std::vector<OpTiming> timings = recorder.timings();
        QCOMPARE(timings.size(), size_t{1});
        QCOMPARE(timings[0].name, std::string("copy"));
        QCOMPARE(timings[0].kernel, kUnnamedKernel);
        // With the dispatch metrics off, a pass takes no timestamps.
        dispatch_metrics::set_enabled(false);
        recorder.begin();
        recorder.copy({&src, 1}, {&dst, 3}, 997);
        recorder.submit_and_wait();
        dispatch_metrics::set_enabled(true);
        QVERIFY(!recorder.last_pass_timed());
        // Once per interval: the first pass is timed, the next ones within the hour are not, and
        // the timings stay the first's.
        Recorder sampled(*context_);
        sampled.set_timing_interval(std::chrono::hours(1));
        for (int pass = 0; pass < 3; ++pass) {
            sampled.begin();
            sampled.copy({&src, 1}, {&dst, 3}, 997);
            if (pass == 0) sampled.copy({&src, 1}, {&dst, 3}, 997);
            sampled.submit_and_wait();
            QCOMPARE(sampled.last_pass_timed(), pass == 0);
            QCOMPARE(sampled.timings().size(), size_t{1});
            QCOMPARE(sampled.timings()[0].dispatches, uint32_t{2});
        }
        check_validation();
    }

    void bad_calls_throw_clear_errors() {
        Buffer b(*context_, 4096);
        Recorder recorder(*context_);
        const auto message = [](const std::function<void()>& call) {
            try {
                call();
            } catch (const Error& e) {
                return QString(e.what());
            }
            return QString();
        };
        QVERIFY(message([&] { recorder.scale({&b, 0}, 16, 2.0f); }).contains("begin()"));
        recorder.begin();
        QVERIFY(message([&] { recorder.scale({&b, 0}, 2000, 2.0f); }).contains("pass the end"));
        QVERIFY(message([&] { recorder.scale({nullptr, 0}, 4, 2.0f); }).contains("no buffer"));
        const DeviceMatrix q8_1{TensorType::Q8_1, 4, 32, {&b, 0}};
        QVERIFY(message([&] { recorder.matmul(q8_1, {&b, 0}, 1, {&b, 0}); }).contains("not supported"));
        const DeviceMatrix odd_q4{TensorType::Q4_0, 4, 48, {&b, 0}};
        QVERIFY(message([&] { recorder.matmul(odd_q4, {&b, 0}, 1, {&b, 0}); }).contains("multiple of 32"));
        const DeviceKvLayer layer{{&b, 0}, {&b, 0}, TensorType::Q4_0, TensorType::F16, 8, 1, 48};
        QVERIFY(message([&] {
                    recorder.store_kv({&b, 0}, {&b, 0}, 1, 0, layer);
                }).contains("multiple of 32"));
        recorder.submit_and_wait(); // what was recorded before the errors still runs
        recorder.begin();
        recorder.scale({&b, 0}, 16, 2.0f);
        recorder.submit_and_wait();
        QCOMPARE(recorder.dispatches(), 1u);
        check_validation();
    }

    // Last: every candidate of the table ran in the tests above (those of features the device
    // lacks excepted, and said). Run with the whole suite.
    void every_candidate_ran() {
        if (ran_.empty()) QSKIP("it counts what the tests before it ran: run the whole suite");
        const VulkanKernelTable& table = vulkan_kernels();
        std::vector<const VulkanCandidates*> lists = {&table.attention};
        for (const VulkanTypeCandidates& of_type : table.by_type) {
            const auto t = static_cast<TensorType>(&of_type - table.by_type);
            const bool listed =
                std::find(std::begin(kWeightTypes), std::end(kWeightTypes), t) != std::end(kWeightTypes);
            QVERIFY2(listed || (of_type.matmul.empty() && of_type.matmul_experts.empty()),
                     qPrintable("type " + QString::number(static_cast<int>(t)) + " is not in kWeightTypes"));
            lists.insert(lists.end(), {&of_type.matmul, &of_type.matmul_experts});
        }
        QStringList missing, unavailable;
        for (const VulkanCandidates* list : lists)
            for (const Candidate<ShaderPlan>& c : *list) {
                if (!context_with(c.guard.features))
                    unavailable.append(QString::fromUtf8(name_of(c.name)));
                else if (!ran_.count(c.id))
                    missing.append(QString::fromUtf8(name_of(c.name)));
            }
        unavailable.removeDuplicates();
        missing.removeDuplicates();
        if (!unavailable.isEmpty())
            qInfo("not run, the device lacks their features: %s", qPrintable(unavailable.join(", ")));
        QVERIFY2(missing.isEmpty(), qPrintable("never ran: " + missing.join(", ")));
    }
};

QTEST_GUILESS_MAIN(TestVulkanOps)
#include "test_vulkan_ops.moc"
