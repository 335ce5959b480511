// Writer round trips: every value type, tensors of every type and alignment,
// streamed tensors, metadata copied from a real vocab; and the writer's refusals.
#include "engine/error.h"
#include "engine/gguf/gguf_file.h"
#include "engine/gguf/gguf_value.h"
#include "engine/gguf/gguf_writer.h"
#include "kernels/tensor_type.h"
#include "tests/support/error_of.h"
#include "tests/support/test_support.h"
#include <QTest>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>

using namespace hearth;
using namespace hearth::gguf;
using kernels::TensorType;

using hearth::test::error_of;

namespace {

bool same_value(const Value& a, const Value& b) {
    if (a.type != b.type || a.data.index() != b.data.index()) return false;
    if (const auto* x = std::get_if<double>(&a.data)) {
        const double y = std::get<double>(b.data);
        return std::memcmp(x, &y, sizeof y) == 0; // bitwise: NaN and -0.0 must survive too
    }
    if (const auto* x = std::get_if<Array>(&a.data)) {
        const Array& y = std::get<Array>(b.data);
        if (x->element_type != y.element_type || x->items.size() != y.items.size()) return false;
        for (size_t i = 0; i < x->items.size(); ++i)
            if (!same_value(x->items[i], y.items[i])) return false;
        return true;
    }
    if (const auto* x = std::get_if<std::string>(&a.data)) return *x == std::get<std::string>(b.data);
    if (const auto* x = std::get_if<uint64_t>(&a.data)) return *x == std::get<uint64_t>(b.data);
    if (const auto* x = std::get_if<int64_t>(&a.data)) return *x == std::get<int64_t>(b.data);
    return std::get<bool>(a.data) == std::get<bool>(b.data);
}

std::vector<std::byte> random_bytes(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<std::byte> out(n);
    for (auto& b : out)
        b = static_cast<std::byte>(rng() & 0xFF);
    return out;
}

std::vector<MetadataEntry> every_value_type() {
    std::vector<MetadataEntry> all = {
        {"t.u8", uint8_value(255)},
        {"t.i8", int8_value(-128)},
        {"t.u16", uint16_value(65535)},
        {"t.i16", int16_value(-32768)},
        {"t.u32", uint32_value(std::numeric_limits<uint32_t>::max())},
        {"t.i32", int32_value(std::numeric_limits<int32_t>::min())},
        {"t.u64", uint64_value(std::numeric_limits<uint64_t>::max())},
        {"t.i64", int64_value(std::numeric_limits<int64_t>::min())},
        {"t.f32", float32_value(3.14159f)},
        {"t.f32.nan", float32_value(std::numeric_limits<float>::quiet_NaN())},
        {"t.f32.negzero", float32_value(-0.0f)},
        {"t.f64", float64_value(-2.718281828459045)},
        {"t.f64.inf", float64_value(std::numeric_limits<double>::infinity())},
        {"t.true", bool_value(true)},
        {"t.false", bool_value(false)},
        {"t.string", string_value("héllo \xF0\x9F\x94\xA5 world")},
        {"t.string.empty", string_value("")},
        {"t.string.nul", string_value(std::string("a\0b", 3))},
        {"t.strings", string_array({"a", "", "ccc", "Ġthe"})},
        {"t.ints", int32_array({0, -1, 2147483647, -2147483647 - 1})},
        {"t.floats", float32_array({0.5f, -1e-8f, 1e30f})},
        {"t.empty", array_value(ValueType::UInt8, {})},
        {"t.bools", array_value(ValueType::Bool, {bool_value(true), bool_value(false)})},
        {"t.u64s", array_value(ValueType::UInt64, {uint64_value(1), uint64_value(1ull << 63)})},
        {"t.f64s", array_value(ValueType::Float64, {float64_value(1e300), float64_value(-1e-300)})},
        {"t.nested", array_value(ValueType::Array, {string_array({"x", "y"}), string_array({}),
                                                    array_value(ValueType::Array, {int32_array({7})})})},
    };
    // Nested arrays mixing element types in different items are legal (each item is an array).
    all.push_back(
        {"t.nested.mixed", array_value(ValueType::Array, {int32_array({1}), float32_array({2.0f})})});
    for (ValueType t : {ValueType::UInt8, ValueType::Int8, ValueType::UInt16, ValueType::Int16,
                        ValueType::UInt32, ValueType::Int32, ValueType::UInt64, ValueType::Int64}) {
        std::vector<Value> items;
        for (int i = 0; i < 3; ++i) {
            Value v;
            v.type = t;
            const bool is_signed = t == ValueType::Int8 || t == ValueType::Int16 || t == ValueType::Int32 ||
                                   t == ValueType::Int64;
            if (is_signed)
                v.data = int64_t{-i};
            else
                v.data = uint64_t(i * 100);
            items.push_back(v);
        }
        all.push_back({"t.array." + std::string(value_type_name(t)), array_value(t, std::move(items))});
    }
    return all;
}

} // namespace

class TestGgufWriter : public QObject {
    Q_OBJECT

    std::string dir_;

private slots:
    void initTestCase() { dir_ = test::make_temp_dir("gguf-writer"); }

    void roundTripsEveryValueType() {
        const auto entries = every_value_type();
        GgufWriter w;
        for (const auto& e : entries)
            w.set(e.key, e.value);
        const std::string path = dir_ + "/values.gguf";
        w.write(path);

        const auto f = GgufFile::open(path);
        QCOMPARE(f->version(), uint32_t{3});
        QVERIFY(f->tensors().empty());
        QCOMPARE(f->metadata().size(), entries.size());
        for (size_t i = 0; i < entries.size(); ++i) {
            QCOMPARE(f->metadata()[i].key, entries[i].key); // order kept
            QVERIFY2(same_value(f->metadata()[i].value, entries[i].value), entries[i].key.c_str());
        }
        QCOMPARE(f->get_int("t.i64").value(), std::numeric_limits<int64_t>::min());
        QVERIFY(!error_of([&] { f->get_int("t.u64"); }).isEmpty()); // does not fit an int64
        QCOMPARE(f->get_bool("t.true").value(), true);
        QCOMPARE(f->get_string("t.string.nul").value(), std::string("a\0b", 3));
        QVERIFY(!std::filesystem::exists(path + ".partial"));
    }

    void tensorsRoundTrip_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("alignment");
        for (int alignment : {32, 1, 64, 4096}) {
            for (TensorType t :
                 {TensorType::F32, TensorType::F16, TensorType::BF16, TensorType::Q4_0, TensorType::Q4_1,
                  TensorType::Q5_0, TensorType::Q5_1, TensorType::Q8_0, TensorType::Q2_K, TensorType::Q3_K,
                  TensorType::Q4_K, TensorType::Q5_K, TensorType::Q6_K}) {
                const std::string name =
                    std::string(kernels::type_traits(t).name) + " align " + std::to_string(alignment);
                QTest::newRow(name.c_str()) << static_cast<int>(t) << alignment;
            }
        }
    }

    void tensorsRoundTrip() {
        QFETCH(int, type);
        QFETCH(int, alignment);
        const auto t = static_cast<TensorType>(type);
        const int64_t row = 2 * kernels::type_traits(t).block_elements;
        const std::vector<std::vector<int64_t>> shapes = {{row}, {row, 3}, {row, 2, 3}, {row, 1, 2, 2}};

        GgufWriter w;
        w.set_alignment(static_cast<size_t>(alignment));
        w.set("general.architecture", string_value("test"));
        std::vector<std::vector<std::byte>> datas;
        for (size_t i = 0; i < shapes.size(); ++i) {
            int64_t rows = 1;
            for (size_t d = 1; d < shapes[i].size(); ++d)
                rows *= shapes[i][d];
            datas.push_back(
                random_bytes(kernels::row_bytes(t, row) * static_cast<size_t>(rows), uint32_t(i)));
            w.add_tensor("tensor." + std::to_string(i), shapes[i], t, datas.back());
        }
        const std::string path = dir_ + "/tensors.gguf";
        w.write(path);

        const auto f = GgufFile::open(path);
        QCOMPARE(f->alignment(), size_t(alignment));
        QCOMPARE(f->get_int("general.alignment").value(), int64_t{alignment});
        QCOMPARE(f->tensors().size(), shapes.size());
        for (size_t i = 0; i < shapes.size(); ++i) {
            const TensorInfo& info = f->tensors()[i];
            QCOMPARE(info.name, "tensor." + std::to_string(i));
            QCOMPARE(info.shape, shapes[i]);
            QCOMPARE(info.type, t);
            QCOMPARE(info.offset % size_t(alignment), uint64_t{0});
            QCOMPARE(info.bytes, datas[i].size());
            QVERIFY(std::memcmp(info.data, datas[i].data(), info.bytes) == 0);
        }
    }

    // A filled tensor is produced in chunks of whole rows, in order, and lands where given data would.
    void streamsFilledTensorsInChunks() {
        const int64_t row = 64, rows = 37;
        const size_t row_bytes = kernels::row_bytes(TensorType::F32, row);
        std::vector<std::pair<int64_t, int64_t>> calls;
        auto fill = [&](int64_t first, int64_t count, std::byte* dst) {
            calls.emplace_back(first, count);
            for (int64_t r = 0; r < count; ++r)
                for (int64_t c = 0; c < row; ++c) {
                    const float v = float((first + r) * 1000 + c);
                    std::memcpy(dst + r * row_bytes + c * 4, &v, 4);
                }
        };
        GgufWriter w;
        w.set_fill_chunk_bytes(5 * row_bytes + 7); // five rows per call
        w.add_tensor("before", {32}, TensorType::F32, random_bytes(128, 1));
        w.add_tensor("filled", {row, rows}, TensorType::F32, fill);
        w.add_tensor("after", {32}, TensorType::F32, random_bytes(128, 2));
        const std::string path = dir_ + "/filled.gguf";
        w.write(path);

        QCOMPARE(calls.size(), size_t{8});
        int64_t expected_first = 0;
        for (const auto& [first, count] : calls) {
            QCOMPARE(first, expected_first);
            QVERIFY(count == 5 || (count == 2 && first == 35));
            expected_first += count;
        }
        const auto f = GgufFile::open(path);
        const TensorInfo* t = f->find_tensor("filled");
        QVERIFY(t != nullptr);
        QCOMPARE(t->shape, (std::vector<int64_t>{row, rows}));
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < row; ++c) {
                float v = 0;
                std::memcpy(&v, t->data + r * row_bytes + c * 4, 4);
                QCOMPARE(v, float(r * 1000 + c));
            }
        QVERIFY(std::memcmp(f->find_tensor("after")->data, random_bytes(128, 2).data(), 128) == 0);
    }

    // A real model written again, metadata and tensors copied: the same tensors, byte for byte.
    void copiesTheTensorsOfARealModel() {
        const auto source = GgufFile::open(test::testdata("models/stories260K.gguf"));
        GgufWriter w;
        w.copy_prefix(*source, "");
        w.copy_tensors(*source);
        QCOMPARE(w.tensor_count(), source->tensors().size());
        const std::string path = dir_ + "/stories-copy.gguf";
        w.write(path);
        const auto copy = GgufFile::open(path);
        QCOMPARE(copy->tensors().size(), source->tensors().size());
        for (const auto& t : source->tensors()) {
            const auto* c = copy->find_tensor(t.name);
            QVERIFY2(c, t.name.c_str());
            QCOMPARE(c->shape, t.shape);
            QCOMPARE(c->type, t.type);
            QCOMPARE(c->bytes, t.bytes);
            QVERIFY2(std::memcmp(c->data, t.data, t.bytes) == 0, t.name.c_str());
        }
    }

    void copiesMetadataFromARealVocab() {
        const auto vocab = GgufFile::open(test::testdata("vocab/ggml-vocab-qwen2.gguf"));
        GgufWriter w;
        w.set("general.architecture", string_value("qwen2"));
        const size_t copied = w.copy_prefix(*vocab, "tokenizer.");
        size_t expected = 0;
        for (const auto& e : vocab->metadata())
            expected += e.key.rfind("tokenizer.", 0) == 0;
        QCOMPARE(copied, expected);
        QVERIFY(copied >= 8);
        w.copy(*vocab, "qwen2.rope.freq_base");
        const QString missing = error_of([&] { w.copy(*vocab, "no.such.key"); });
        QVERIFY2(missing.startsWith(QString::fromStdString(vocab->path())) && missing.contains("no.such.key"),
                 qPrintable(missing));

        const std::string path = dir_ + "/vocab-copy.gguf";
        w.write(path);
        const auto f = GgufFile::open(path);
        QCOMPARE(f->metadata().size(), copied + 2);
        for (const auto& e : vocab->metadata()) {
            if (e.key.rfind("tokenizer.", 0) != 0 && e.key != "qwen2.rope.freq_base") continue;
            const Value* v = f->find(e.key);
            QVERIFY2(v != nullptr, e.key.c_str());
            QVERIFY2(same_value(*v, e.value), e.key.c_str());
        }
    }

    void setReplacesAndRemoves() {
        GgufWriter w;
        w.set("a", uint32_value(1));
        w.set("b", uint32_value(2));
        w.set("a", string_value("again"));
        QCOMPARE(w.metadata().size(), size_t{2});
        QCOMPARE(w.metadata()[0].key, std::string("a"));
        QCOMPARE(std::get<std::string>(w.find("a")->data), std::string("again"));
        QVERIFY(w.remove("b"));
        QVERIFY(!w.remove("b"));
        QVERIFY(w.find("b") == nullptr);
    }

    void rejectsMalformedInput_data() {
        QTest::addColumn<int>("which");
        QTest::addColumn<QString>("keyword");
        QTest::newRow("empty key") << 0 << "empty metadata key";
        QTest::newRow("u8 out of range") << 1 << "out of range";
        QTest::newRow("array item of the wrong type") << 2 << "element type";
        QTest::newRow("value of the wrong kind") << 3 << "wrong kind";
        QTest::newRow("bad alignment") << 4 << "power of two";
        QTest::newRow("duplicate tensor") << 5 << "duplicate tensor";
        QTest::newRow("data size") << 6 << "bytes of data";
        QTest::newRow("row not a block multiple") << 7 << "block size";
        QTest::newRow("zero dimension") << 8 << "dimension 0";
        QTest::newRow("five dimensions") << 9 << "dimensions";
        QTest::newRow("empty tensor name") << 10 << "empty tensor name";
        QTest::newRow("nested too deep") << 11 << "nested";
    }

    void rejectsMalformedInput() {
        QFETCH(int, which);
        QFETCH(QString, keyword);
        GgufWriter w;
        w.add_tensor("t", {32}, TensorType::F32, std::vector<std::byte>(128));
        Value bad_u8;
        bad_u8.type = ValueType::UInt8;
        bad_u8.data = uint64_t{300};
        Value wrong_kind;
        wrong_kind.type = ValueType::String;
        wrong_kind.data = uint64_t{1};
        Value deep = int32_array({1});
        for (int i = 0; i < 10; ++i)
            deep = array_value(ValueType::Array, {deep});
        const std::vector<std::function<void()>> cases = {
            [&] { w.set("", uint8_value(1)); },
            [&] { w.set("k", bad_u8); },
            [&] {
                w.set("k", array_value(ValueType::Int32, {int32_value(1), string_value("x")}));
            },
            [&] { w.set("k", wrong_kind); },
            [&] { w.set_alignment(48); },
            [&] { w.add_tensor("t", {32}, TensorType::F32, std::vector<std::byte>(128)); },
            [&] { w.add_tensor("u", {32}, TensorType::F32, std::vector<std::byte>(127)); },
            [&] { w.add_tensor("u", {33}, TensorType::Q8_0, std::vector<std::byte>(34)); },
            [&] {
                w.add_tensor("u", {32, 0}, TensorType::F32, std::vector<std::byte>());
            },
            [&] {
                w.add_tensor("u", {32, 1, 1, 1, 1}, TensorType::F32, std::vector<std::byte>(128));
            },
            [&] { w.add_tensor("", {32}, TensorType::F32, std::vector<std::byte>(128)); },
            [&] { w.set("k", deep); },
        };
        const QString message = error_of(cases.at(size_t(which)));
        QVERIFY2(message.contains(keyword), qPrintable("got: " + message));
        QCOMPARE(w.tensor_count(), size_t{1}); // a refused tensor is not kept
    }

    void writeFailureNamesThePath() {
        GgufWriter w;
        w.set("a", uint32_value(1));
        const std::string path = dir_ + "/no/such/dir/out.gguf";
        const QString message = error_of([&] { w.write(path); });
        QVERIFY2(message.startsWith(QString::fromStdString(path) + ": "), qPrintable(message));
        QVERIFY(!std::filesystem::exists(path));
    }

    // A filler that throws leaves neither the file nor its partial copy behind.
    void failedFillLeavesNoFile() {
        GgufWriter w;
        w.add_tensor("t", {32}, TensorType::F32,
                     [](int64_t, int64_t, std::byte*) { throw Error("filler failed on purpose"); });
        const std::string path = dir_ + "/failed.gguf";
        QVERIFY(error_of([&] { w.write(path); }).contains("on purpose"));
        QVERIFY(!std::filesystem::exists(path));
        QVERIFY(!std::filesystem::exists(path + ".partial"));
    }
};

QTEST_MAIN(TestGgufWriter)
#include "test_gguf_writer.moc"
