// Reads the real GGUF files of ../shared/testdata (written by llama.cpp's tools)
// and checks the reader against facts known about them.
#include "engine/error.h"
#include "engine/gguf/gguf_file.h"
#include "kernels/tensor_type.h"
#include "tests/support/error_of.h"
#include "tests/support/test_support.h"
#include <QDir>
#include <QTest>
#include <cmath>
#include <cstring>

using namespace hearth;
using namespace hearth::gguf;
using kernels::TensorType;

using hearth::test::error_of;

namespace {

std::vector<int64_t> shape_of(const GgufFile& f, const char* name) {
    const TensorInfo* t = f.find_tensor(name);
    return t ? t->shape : std::vector<int64_t>{};
}

} // namespace

class TestGgufReader : public QObject {
    Q_OBJECT

private slots:
    void readsEveryTestFile_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<bool>("vocab_only");
        const auto add = [](const QString& dir, bool vocab_only) {
            const QDir d(QString::fromStdString(test::testdata(dir.toStdString())));
            const QStringList files = d.entryList({"*.gguf"}, QDir::Files, QDir::Name);
            QVERIFY2(!files.isEmpty(), qPrintable("no GGUF files in " + d.path()));
            for (const QString& name : files)
                QTest::newRow(qPrintable(name)) << d.filePath(name) << vocab_only;
        };
        add("models", false);
        add("vocab", true);
    }

    // Every file opens; every tensor's size follows from its shape and type, and its data,
    // as mapped, is the bytes at data_offset + offset of the file on disk.
    void readsEveryTestFile() {
        QFETCH(QString, path);
        QFETCH(bool, vocab_only);
        const auto f = GgufFile::open(path.toStdString());
        QCOMPARE(f->path(), path.toStdString());
        QVERIFY(f->version() == 2 || f->version() == 3);
        QCOMPARE(f->alignment(), size_t{32});
        QVERIFY(f->get_string("general.architecture").has_value() || vocab_only);
        const Array* tokens = f->get_array("tokenizer.ggml.tokens");
        QVERIFY(tokens != nullptr);
        QCOMPARE(tokens->element_type, ValueType::String);
        QVERIFY(tokens->items.size() > 100);

        QCOMPARE(f->tensors().empty(), vocab_only);
        const std::string bytes = test::read_file(path.toStdString());
        QCOMPARE(bytes.size(), f->file_size());
        QCOMPARE(f->data_offset() % f->alignment(), size_t{0});
        for (const TensorInfo& t : f->tensors()) {
            QVERIFY(!t.shape.empty() && t.shape.size() <= 4);
            QCOMPARE(t.offset % f->alignment(), uint64_t{0});
            int64_t rows = 1;
            for (size_t d = 1; d < t.shape.size(); ++d)
                rows *= t.shape[d];
            QCOMPARE(t.bytes, kernels::row_bytes(t.type, t.shape[0]) * static_cast<size_t>(rows));
            QCOMPARE(t.elements(), t.shape[0] * rows);
            QVERIFY(f->data_offset() + t.offset + t.bytes <= bytes.size());
            QVERIFY(std::memcmp(t.data, bytes.data() + f->data_offset() + t.offset, t.bytes) == 0);
            QCOMPARE(f->find_tensor(t.name), &t);
        }
    }

    void stories260KFacts() {
        const auto f = GgufFile::open(test::testdata("models/stories260K.gguf"));
        QCOMPARE(f->get_string("general.architecture").value(), std::string("llama"));
        QCOMPARE(f->get_int("llama.block_count").value(), int64_t{5});
        QCOMPARE(f->get_int("llama.embedding_length").value(), int64_t{64});
        QCOMPARE(f->get_int("llama.attention.head_count").value(), int64_t{8});
        QCOMPARE(f->get_int("llama.attention.head_count_kv").value(), int64_t{4});
        QVERIFY(std::abs(f->get_float("llama.attention.layer_norm_rms_epsilon").value() - 1e-5) < 1e-9);
        QCOMPARE(f->get_array("tokenizer.ggml.tokens")->items.size(), size_t{512});
        QCOMPARE(f->get_array("tokenizer.ggml.scores")->element_type, ValueType::Float32);

        QCOMPARE(shape_of(*f, "token_embd.weight"), (std::vector<int64_t>{64, 512}));
        QCOMPARE(shape_of(*f, "blk.0.attn_k.weight"), (std::vector<int64_t>{64, 32}));
        QCOMPARE(shape_of(*f, "blk.4.ffn_down.weight"), (std::vector<int64_t>{172, 64}));
        QCOMPARE(f->tensors().size(), size_t{2 + 5 * 9 + 1}); // embd, output norm, 9 per layer, output
        QCOMPARE(f->find_tensor("token_embd.weight")->type, TensorType::F32);
        QVERIFY(f->find_tensor("blk.5.attn_k.weight") == nullptr);

        // A trained model's norm weights are finite, mostly near 1: a wrong data offset would show.
        const TensorInfo* norm = f->find_tensor("output_norm.weight");
        QVERIFY(norm != nullptr);
        std::vector<float> values(static_cast<size_t>(norm->elements()));
        std::memcpy(values.data(), norm->data, norm->bytes);
        double sum = 0;
        for (float v : values) {
            QVERIFY(std::isfinite(v) && std::abs(v) < 100);
            sum += v;
        }
        QVERIFY(sum / values.size() > 0.1);
    }

    void quantizedFilesHoldTheExpectedTypes_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("tensor");
        QTest::addColumn<int>("type");
        QTest::addColumn<int64_t>("file_type");
        // The Q4_K_M stories file falls back to Q5_0/Q8_0/F16: 64 columns are not a multiple of 256.
        QTest::newRow("stories Q4_K_M q") << "stories260K-Q4_K_M.gguf"
                                          << "blk.0.attn_q.weight" << 6 << int64_t{15};
        QTest::newRow("stories Q4_K_M output") << "stories260K-Q4_K_M.gguf"
                                               << "output.weight" << 8 << int64_t{15};
        QTest::newRow("stories Q4_K_M down") << "stories260K-Q4_K_M.gguf"
                                             << "blk.0.ffn_down.weight" << 1 << int64_t{15};
        QTest::newRow("stories Q8_0") << "stories260K-Q8_0.gguf"
                                      << "blk.1.ffn_up.weight" << 8 << int64_t{7};
        QTest::newRow("stories Q4_0") << "stories260K-Q4_0.gguf"
                                      << "blk.1.attn_q.weight" << 2 << int64_t{2};
        QTest::newRow("llama3 Q4_K") << "tiny-llama3-Q4_K_M.gguf"
                                     << "blk.0.attn_q.weight" << 12 << int64_t{15};
        QTest::newRow("llama3 Q6_K") << "tiny-llama3-Q4_K_M.gguf"
                                     << "output.weight" << 14 << int64_t{15};
    }

    void quantizedFilesHoldTheExpectedTypes() {
        QFETCH(QString, file);
        QFETCH(QString, tensor);
        QFETCH(int, type);
        QFETCH(int64_t, file_type);
        const auto f = GgufFile::open(test::testdata("models/" + file.toStdString()));
        const TensorInfo* t = f->find_tensor(tensor.toStdString());
        QVERIFY(t != nullptr);
        QCOMPARE(static_cast<int>(t->type), type);
        QCOMPARE(f->get_int("general.file_type").value(), file_type);
        QCOMPARE(f->find_tensor("output_norm.weight")->type, TensorType::F32);
    }

    void otherArchitectures() {
        const auto qwen2 = GgufFile::open(test::testdata("models/tiny-qwen2.gguf"));
        QCOMPARE(qwen2->get_string("general.architecture").value(), std::string("qwen2"));
        QVERIFY(qwen2->find_tensor("blk.0.attn_q.bias") != nullptr);
        QVERIFY(qwen2->find_tensor("output.weight") == nullptr); // tied embeddings
        const auto llama3 = GgufFile::open(test::testdata("models/tiny-llama3.gguf"));
        QVERIFY(llama3->find_tensor("rope_freqs.weight") != nullptr);
        QCOMPARE(llama3->find_tensor("rope_freqs.weight")->shape.size(), size_t{1});
        const auto gpt2 = GgufFile::open(test::testdata("models/tiny-gpt2.gguf"));
        QCOMPARE(gpt2->get_string("general.architecture").value(), std::string("gpt2"));
    }

    void vocabFiles() {
        const auto qwen = GgufFile::open(test::testdata("vocab/ggml-vocab-qwen2.gguf"));
        QVERIFY(qwen->tensors().empty());
        QCOMPARE(qwen->get_string("tokenizer.ggml.model").value(), std::string("gpt2"));
        QCOMPARE(qwen->get_string("tokenizer.ggml.pre").value(), std::string("qwen2"));
        QCOMPARE(qwen->get_array("tokenizer.ggml.tokens")->items.size(), size_t{151936});
        const Array* merges = qwen->get_array("tokenizer.ggml.merges");
        QVERIFY(merges != nullptr && merges->items.size() > 100000);
        for (const Value& merge : merges->items) // each merge is "left right"
            QVERIFY(std::get<std::string>(merge.data).find(' ') != std::string::npos);
        const auto tokens = qwen->get_array("tokenizer.ggml.tokens");
        QCOMPARE(std::get<std::string>(tokens->items[0].data), std::string("!"));
        QVERIFY(qwen->get_string("tokenizer.chat_template")->find("<|im_start|>") != std::string::npos);
        QCOMPARE(qwen->get_int("tokenizer.ggml.eos_token_id").value(), int64_t{151643});
        // The vocab-only file ends before the (empty) aligned data section.
        QVERIFY(qwen->data_offset() >= qwen->file_size() - 32);
    }

    // A loader frees the vocabulary arrays once the tokenizer holds them; every other value stays.
    void largeArraysAreReleasedAfterLoading() {
        const auto file = GgufFile::open_for_loading(test::testdata("vocab/ggml-vocab-qwen2.gguf"));
        QCOMPARE(file->get_array("tokenizer.ggml.tokens")->items.size(), size_t{151936});
        file->release_large_arrays();
        const Value* tokens = file->find("tokenizer.ggml.tokens");
        QVERIFY(tokens != nullptr);
        QVERIFY(std::get<Array>(tokens->data).items.empty());
        QVERIFY(!error_of([&] { file->get_array("tokenizer.ggml.tokens"); }).isEmpty());
        QVERIFY(!error_of([&] { file->get_array("tokenizer.ggml.merges"); }).isEmpty());
        // Scalars and strings are copies: readable after the metadata section's pages are gone.
        QCOMPARE(file->get_string("tokenizer.ggml.pre").value(), std::string("qwen2"));
        QCOMPARE(file->get_int("tokenizer.ggml.eos_token_id").value(), int64_t{151643});
        QVERIFY(file->get_string("tokenizer.chat_template")->find("<|im_start|>") != std::string::npos);
    }

    void typedLookups() {
        const std::string path = test::testdata("models/stories260K.gguf");
        const auto f = GgufFile::open(path);
        QVERIFY(!f->get_string("no.such.key").has_value());
        QVERIFY(!f->get_int("no.such.key").has_value());
        QVERIFY(!f->get_float("no.such.key").has_value());
        QVERIFY(!f->get_bool("no.such.key").has_value());
        QVERIFY(f->get_array("no.such.key") == nullptr);
        QVERIFY(f->find("general.architecture") != nullptr);
        QCOMPARE(f->get_float("llama.block_count").value(), 5.0); // integers read as numbers

        const QString wrong = error_of([&] { f->get_string("llama.block_count"); });
        QVERIFY2(wrong.startsWith(QString::fromStdString(path) + ": "), qPrintable(wrong));
        QVERIFY2(wrong.contains("llama.block_count") && wrong.contains("uint32"), qPrintable(wrong));
        QVERIFY(!error_of([&] { f->get_int("general.architecture"); }).isEmpty());
        QVERIFY(!error_of([&] { f->get_bool("llama.block_count"); }).isEmpty());
        QVERIFY(!error_of([&] { f->get_array("general.architecture"); }).isEmpty());
        QVERIFY(!error_of([&] { f->get_float("tokenizer.ggml.tokens"); }).isEmpty());
    }

    void missingFileNamesThePath() {
        const std::string path = test::make_temp_dir("gguf-reader") + "/absent.gguf";
        const QString message = error_of([&] { GgufFile::open(path); });
        QVERIFY2(message.startsWith(QString::fromStdString(path) + ": "), qPrintable(message));
        QVERIFY2(message.contains("cannot open"), qPrintable(message));
    }

    void directoryIsRejected() {
        const std::string dir = test::make_temp_dir("gguf-reader");
        const QString message = error_of([&] { GgufFile::open(dir); });
        QVERIFY2(message.startsWith(QString::fromStdString(dir) + ": "), qPrintable(message));
        QVERIFY2(message.contains("not a regular file"), qPrintable(message));
    }

    // The mapping belongs to the GgufFile: data stays readable as long as a reference is held.
    void dataOutlivesOtherReferences() {
        std::shared_ptr<const GgufFile> keep;
        const TensorInfo* t = nullptr;
        {
            auto f = GgufFile::open(test::testdata("models/stories260K.gguf"));
            keep = f;
            t = f->find_tensor("output_norm.weight");
        }
        float first = 0;
        std::memcpy(&first, t->data, sizeof first);
        QVERIFY(std::isfinite(first));
    }
};

QTEST_MAIN(TestGgufReader)
#include "test_gguf_reader.moc"
