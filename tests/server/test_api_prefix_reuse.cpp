// Prefix reuse over real HTTP on loopback: a second chat request that extends the first
// (its messages, the reply it got, a new user message) reuses exactly the longest common
// prefix of the tokens the first request left in the KV cache and the second prompt's
// tokens, and computes only the tokens after it. The test works the cached tokens out
// on its own: the first prompt's tokens, then a greedy decode of its own over the
// forward pass, keeping what the cache holds (the last token of a reply cut by
// max_tokens is sampled but never evaluated).
#include "app/server/api_server.h"
#include "app/server/engine_thread_backend.h"
#include "engine/forward/inference.h"
#include "engine/model/model.h"
#include "engine/runtime/runtime_config.h"
#include "engine/sampling/sampler.h"
#include "engine/session/chat_session.h"
#include "tests/server/http_test_client.h"
#include "tests/support/test_support.h"
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace hearth;
using namespace hearth::server;
using namespace hearth::test;

namespace {

// As `hearth-cli serve` asks; the model's trained context caps it (128 for stories260K).
constexpr int kRequestedContext = 4096;

int32_t commonPrefix(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
    size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i])
        ++i;
    return static_cast<int32_t>(i);
}

std::vector<engine::ChatTurn> toTurns(const QJsonArray& messages) {
    std::vector<engine::ChatTurn> turns;
    for (const QJsonValue& m : messages)
        turns.push_back({chat::role_from_name(m["role"].toString().toStdString()).value(),
                         m["content"].toString().toStdString()});
    return turns;
}

// What one greedy reply leaves behind, computed without the chat session's reuse logic.
struct GreedyReply {
    std::vector<int32_t> promptTokens;
    std::vector<int32_t> generated; // every sampled token of the reply
    std::vector<int32_t> cached;    // the tokens the KV cache holds afterwards
    std::string text;
};

GreedyReply greedyReply(const std::shared_ptr<const engine::Model>& model,
                        const std::vector<engine::ChatTurn>& turns, int maxTokens, int32_t nCtx) {
    engine::Inference inference(model, engine::InferenceOptions{1});
    const engine::ChatSession renderer(inference, nCtx); // renders and tokenizes only
    const auto& tokenizer = model->tokenizer();
    GreedyReply reply;
    reply.promptTokens = renderer.prompt_tokens(turns, {});
    reply.cached = reply.promptTokens;
    auto cache = inference.new_cache(nCtx);
    std::span<const float> logits = inference.eval(*cache, reply.promptTokens);
    for (int i = 0; i < maxTokens; ++i) {
        const int32_t next = engine::argmax(logits);
        if (tokenizer.is_end_of_generation(next)) break;
        reply.generated.push_back(next);
        if (i + 1 == maxTokens) break; // sampled, not evaluated
        reply.cached.push_back(next);
        logits = inference.eval(*cache, std::span<const int32_t>(&reply.cached.back(), 1));
    }
    reply.text = tokenizer.decode(reply.generated);
    return reply;
}

} // namespace

class TestApiPrefixReuse : public QObject {
    Q_OBJECT

    QByteArray chatBody(const QString& modelId, const QJsonArray& messages, int maxTokens) {
        const QJsonObject body{
            {"model", modelId}, {"messages", messages}, {"temperature", 0}, {"max_tokens", maxTokens}};
        return QJsonDocument(body).toJson(QJsonDocument::Compact);
    }

private slots:
    void initTestCase() { qputenv("no_proxy", "127.0.0.1,localhost"); }

    void secondRequestReusesTheSharedPrefix_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("question");
        QTest::addColumn<int>("maxTokens");
        QTest::addColumn<QString>("followUp");
        QTest::addColumn<bool>("shifts");     // the second prompt overflows the context
        QTest::addColumn<bool>("editsReply"); // the client sends the reply back with its end changed
        // tiny-qwen2 has no template of its own: ChatML, Qwen's format, with ChatML's
        // markers written as text in its SentencePiece vocabulary. Context 256.
        QTest::newRow("tiny-qwen2") << "tiny-qwen2"
                                    << "Tell me about a dog." << 20 << "And then what happened?" << false
                                    << false;
        QTest::newRow("stories260K/fits") << "stories260K"
                                          << "A cat." << 12 << "Then?" << false << false;
        // Reuse stops at the first token that differs, inside the reply.
        QTest::newRow("stories260K/edited reply") << "stories260K"
                                                  << "A cat." << 12 << "Then?" << false << true;
        // "37 of 52": the second prompt (129 tokens) and its reply do not
        // fit in stories260K's 128, so the first user turn is shifted out of view. The
        // whole first request's cache was still reused; 37 is what of it stays in view.
        QTest::newRow("stories260K/shifts")
            << "stories260K"
            << "Tell me about a dog." << 20 << "And then what happened?" << true << false;
    }
    void secondRequestReusesTheSharedPrefix() {
        QFETCH(QString, model);
        QFETCH(QString, question);
        QFETCH(int, maxTokens);
        QFETCH(QString, followUp);
        QFETCH(bool, shifts);
        QFETCH(bool, editsReply);
        const std::string path = testdata("models/" + model.toStdString() + ".gguf");
        engine::RuntimeConfig config;
        config.threads = 1;
        config.context_length = kRequestedContext;
        EngineThreadBackend backend(path, config);
        ApiServer server(&backend);
        QVERIFY(server.listen(QHostAddress::LocalHost, 0));
        const auto post = [&](const QJsonArray& messages, int tokens) {
            return httpRequest(server.port(), "POST", "/v1/chat/completions",
                               chatBody(backend.modelId(), messages, tokens))
                .value_or(HttpReply{});
        };

        const QJsonArray first{QJsonObject{{"role", "user"}, {"content", question}}};
        const HttpReply one = post(first, maxTokens);
        QCOMPARE(one.status, 200);
        const QString replyText = one.json()["choices"][0]["message"]["content"].toString();

        const auto engineModel = engine::Model::load(path);
        const int32_t nCtx = backend.contextLength();
        const GreedyReply expected = greedyReply(engineModel, toTurns(first), maxTokens, nCtx);
        // The server's reply is the one worked out here, so its cache holds `expected.cached`.
        QCOMPARE(replyText, QString::fromStdString(expected.text));
        QCOMPARE(one.json()["usage"]["prompt_tokens"].toInt(), int(expected.promptTokens.size()));
        QCOMPARE(one.json()["usage"]["completion_tokens"].toInt(), int(expected.generated.size()));

        QJsonArray second = first;
        const QString sentBack = editsReply ? replyText.left(replyText.size() - 5) + "Zzz" : replyText;
        second.append(QJsonObject{{"role", "assistant"}, {"content", sentBack}});
        second.append(QJsonObject{{"role", "user"}, {"content", followUp}});
        engine::Inference inference(engineModel, engine::InferenceOptions{1});
        const std::vector<int32_t> secondPrompt =
            engine::ChatSession(inference, nCtx).prompt_tokens(toTurns(second), {});
        const int32_t shared = commonPrefix(expected.cached, secondPrompt);
        const auto secondLength = static_cast<int32_t>(secondPrompt.size());

        const int followUpTokens = 4;
        const HttpReply two = post(second, followUpTokens);
        QCOMPARE(two.status, 200);
        const int promptTokens = two.json()["usage"]["prompt_tokens"].toInt();
        const int reused = two.json()["usage"]["prompt_tokens_details"]["cached_tokens"].toInt();
        // prompt_tokens counts what the model sees: a context shift leaves the rest out.
        const int shiftedOut = secondLength - promptTokens;
        qInfo("first prompt %zu tokens, cache after it %zu; second prompt %d tokens, %d shared with the "
              "cache, %d shifted out of view; reused %d, computed %d; the second prompt %s",
              expected.promptTokens.size(), expected.cached.size(), secondLength, shared, shiftedOut, reused,
              promptTokens - reused,
              std::equal(expected.generated.begin(), expected.generated.end(),
                         secondPrompt.begin() + std::ssize(expected.promptTokens),
                         secondPrompt.begin() +
                             std::min(std::ssize(secondPrompt),
                                      std::ssize(expected.promptTokens) + std::ssize(expected.generated)))
                  ? "holds the reply's tokens as generated"
                  : "differs from the reply's tokens as generated");

        // The whole first prompt is shared, and so is the whole cache unless the client changed
        // the reply (these replies re-tokenize to the tokens generated).
        QVERIFY(shared >= int32_t(expected.promptTokens.size()));
        QCOMPARE(shared < int32_t(expected.cached.size()), editsReply);
        QCOMPARE(shiftedOut > 0, shifts);
        QCOMPARE(secondLength + std::min(followUpTokens, nCtx / 4) > nCtx, shifts);
        // Every shared token still in view is reused; only the tokens after the first
        // difference are computed (at least two are: see ChatSession::prefill).
        QCOMPARE(reused, std::min(shared - shiftedOut, promptTokens - 2));
        QCOMPARE(promptTokens - reused, secondLength - shared);
    }
};

QTEST_GUILESS_MAIN(TestApiPrefixReuse)
#include "test_api_prefix_reuse.moc"
