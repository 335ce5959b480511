// Speculative decoding in the app, over a real backend with stories260K: the settings are saved
// and read back; they reach the inference worker (the chat's replies draft and verify) and the
// app's API server (its requests too); the metrics controller shows the acceptance rate, the
// tokens per verify pass and the speed-up over the last plain reply; and a draft model that
// cannot draft (another vocabulary, a damaged file) is named with the loaded model in the
// chat's message while the reply still arrives, decoded plainly; a usable draft model drafts.
#include "app/chat/chat_controller.h"
#include "app/chat/hearth_backend.h"
#include "app/chat/message_list_model.h"
#include "app/metrics/metrics_controller.h"
#include "app/models/inference_worker.h"
#include "app/settings/app_settings.h"
#include "tests/app/backend_fixture.h"
#include "tests/server/api_fixture.h"
#include <QFile>
#include <QSignalSpy>
#include <QTest>

using namespace hearth;
using namespace hearth::app;
using namespace hearth::test;

namespace {
// A prompt that repeats itself, so prompt lookup has something to draft from.
const QString kRepeating =
    QStringLiteral("Once upon a time there was a little girl. Once upon a time there was");

// Sends `text` and waits for the worker's result of the reply.
std::optional<GenerationResult> reply(HearthBackend& b, const QString& text) {
    QSignalSpy finished(b.worker(), &InferenceWorker::generationFinished);
    if (!b.chat()->send(text) || !finishReply(b.chat())) return std::nullopt;
    if (finished.isEmpty() && !finished.wait(10000)) return std::nullopt;
    return finished.last().at(1).value<GenerationResult>();
}

// Greedy, short replies: the same text with and without speculation.
void greedy(AppSettings& s) {
    s.setTemperature(0);
    s.setMaxReplyTokens(48);
}
} // namespace

class TestAppSpeculation : public QObject {
    Q_OBJECT
    QString dir_;
    AppPaths paths() const { return {dir_ + "/data", dir_ + "/settings.ini"}; }

private slots:
    void init() { dir_ = QString::fromStdString(make_temp_dir("hearth-app-speculation")); }

    void settingsAreSavedAndReadBack() {
        {
            AppSettings s(dir_ + "/settings.ini", dir_);
            QCOMPARE(s.speculation(), QStringLiteral("off"));
            QCOMPARE(s.generationOptions().speculation.drafter, engine::SpeculationOptions::Drafter::Off);
            s.setSpeculation(QStringLiteral("draft"));
            s.setDraftModelPath(QStringLiteral("/models/draft.gguf"));
            s.setDraftMax(99);   // clamped to 16
            s.setLookupNgram(0); // clamped to 1
            s.flush();
        }
        AppSettings again(dir_ + "/settings.ini", dir_);
        QCOMPARE(again.speculation(), QStringLiteral("draft"));
        QCOMPARE(again.draftModelPath(), QStringLiteral("/models/draft.gguf"));
        QCOMPARE(again.draftMax(), 16);
        QCOMPARE(again.lookupNgram(), 1);
        const engine::SpeculationOptions options = again.generationOptions().speculation;
        QCOMPARE(options.drafter, engine::SpeculationOptions::Drafter::DraftModel);
        QCOMPARE(options.draft_model_path, std::string("/models/draft.gguf"));
        QCOMPARE(options.max_draft, 16);
        again.setSpeculation(QStringLiteral("no such drafter"));
        QCOMPARE(again.speculation(), QStringLiteral("off"));
        // A draft model chosen without a file drafts nothing.
        again.setSpeculation(QStringLiteral("draft"));
        again.setDraftModelPath(QString());
        QCOMPARE(again.speculationOptions().drafter, engine::SpeculationOptions::Drafter::Off);
    }

    // The chat's replies follow the setting: a plain reply first (the baseline), then prompt
    // lookup, whose reply is the same greedy text, drafted and verified; the metrics show it.
    void theChatsRepliesSpeculateAndTheMetricsShowIt() {
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(loadModel(b));
        AppSettings& s = *b.settings();
        greedy(s);
        MetricsController& metrics = *b.metrics();
        QVERIFY(!metrics.speculationOn());

        const auto plain = reply(b, kRepeating);
        QVERIFY(plain);
        QVERIFY(!plain->stats.speculative);
        QCOMPARE(plain->stats.drafted_tokens, 0);
        QTRY_VERIFY(metrics.hasPlainBaseline()); // the metrics hear of the reply after the chat
        const QString plainText = b.chat()->messages()->messages().constLast().content;

        s.setSpeculation(QStringLiteral("lookup"));
        s.setLookupNgram(2);
        s.setDraftMax(6);
        QVERIFY(metrics.speculationOn());
        QVERIFY(b.chat()->regenerate());
        QVERIFY(finishReply(b.chat()));
        QCOMPARE(b.chat()->messages()->messages().constLast().content, plainText);
        const auto speculative = reply(b, kRepeating);
        QVERIFY(speculative);
        QVERIFY(speculative->stats.speculative);
        QVERIFY(speculative->stats.speculation_error.empty());
        QVERIFY2(speculative->stats.drafted_tokens > 0, "prompt lookup drafted nothing");
        QVERIFY(speculative->stats.verify_passes > 0);
        // The reply's figures under it say how much of the drafts the model took.
        const QString figures = b.chat()
                                    ->messages()
                                    ->data(b.chat()->messages()->index(b.chat()->messages()->count() - 1),
                                           MessageListModel::StatsRole)
                                    .toString();
        QVERIFY2(figures.contains(QStringLiteral("%1% of drafted tokens accepted")
                                      .arg(qRound(100.0 * speculative->stats.acceptance_rate()))),
                 qPrintable(figures));

        // A sample taken during the reply may land first: wait for one from after it.
        metrics.sample();
        QTRY_COMPARE_WITH_TIMEOUT(metrics.draftedTokens(), qint64(speculative->stats.drafted_tokens), 5000);
        QVERIFY(metrics.speculating());
        QCOMPARE(metrics.acceptedTokens(), qint64(speculative->stats.accepted_tokens));
        QCOMPARE(metrics.acceptanceRate(), speculative->stats.acceptance_rate());
        QVERIFY(metrics.acceptanceRate() > 0 && metrics.acceptanceRate() <= 1);
        QVERIFY(metrics.tokensPerVerifyPass() >= 1);
        QCOMPARE(metrics.tokensPerVerifyPass(), speculative->stats.tokens_per_verify_pass());
        QVERIFY(metrics.speedup() > 0);
        QCOMPARE(metrics.speedup(), metrics.decodeTokensPerSecond() / metrics.plainTokensPerSecond());
        QVERIFY(b.chat()->errorMessage().isEmpty());

        // Another model has no plain baseline yet.
        metrics.setModelPath(QStringLiteral("/another/model.gguf"));
        QVERIFY(!metrics.hasPlainBaseline());
        QCOMPARE(metrics.speedup(), 0.0);

        s.setSpeculation(QStringLiteral("off"));
        QVERIFY(!metrics.speculationOn());
        const auto off = reply(b, QStringLiteral("And then?"));
        QVERIFY(off);
        QVERIFY(!off->stats.speculative);
    }

    // The app's API server honours the setting for every request.
    void theAppsApiServerSpeculates() {
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(loadModel(b));
        AppSettings& s = *b.settings();
        s.setServerPort(0);
        s.setServerEnabled(true);
        QVERIFY(s.serverListening());
        const auto port = static_cast<quint16>(QUrl(s.serverUrl()).port());
        const QByteArray body = "{\"model\":\"stories260K\",\"prompt\":\"" + kRepeating.toUtf8() +
                                "\",\"max_tokens\":48,\"temperature\":0}";
        QSignalSpy served(b.apiServer(), &server::ApiServer::completionServed);

        const auto plain = httpRequest(port, "POST", "/v1/completions", body);
        QVERIFY(plain);
        QCOMPARE(plain->status, 200);
        s.setSpeculation(QStringLiteral("lookup"));
        const auto speculative = httpRequest(port, "POST", "/v1/completions", body);
        QVERIFY(speculative);
        QCOMPARE(speculative->status, 200);
        QCOMPARE(speculative->json()["choices"][0]["text"].toString(),
                 plain->json()["choices"][0]["text"].toString());

        QVERIFY(served.size() == 2 || served.wait(10000));
        const auto first = served.at(0).at(0).value<server::CompletionResult>();
        const auto second = served.at(1).at(0).value<server::CompletionResult>();
        QVERIFY(!first.stats.speculative);
        QVERIFY(second.stats.speculative);
        QVERIFY(second.stats.drafted_tokens > 0);

        // A draft of another vocabulary: the request is answered, plainly, and the window says why.
        const QString other = QString::fromStdString(testdata("models/llama-2-tiny-random.gguf"));
        s.setSpeculation(QStringLiteral("draft"));
        s.setDraftModelPath(other);
        const auto unusable = httpRequest(port, "POST", "/v1/completions", body);
        QVERIFY(unusable);
        QCOMPARE(unusable->status, 200);
        QCOMPARE(unusable->json()["choices"][0]["text"].toString(),
                 plain->json()["choices"][0]["text"].toString());
        QTRY_VERIFY2(b.chat()->errorMessage().contains(other), qPrintable(b.chat()->errorMessage()));
        QVERIFY(b.chat()->errorMessage().contains(storiesModelPath()));
    }

    // A draft of another vocabulary, then a damaged one: the chat says so, naming the draft and
    // the loaded model, and the reply arrives all the same.
    void anUnusableDraftIsNamedAndTheReplyArrives() {
        const QString damaged = dir_ + "/damaged-draft.gguf";
        QFile file(damaged);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray("GGUF") + QByteArray(60, '\x7f'));
        file.close();
        const QString otherVocabulary = QString::fromStdString(testdata("models/llama-2-tiny-random.gguf"));

        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(loadModel(b));
        AppSettings& s = *b.settings();
        greedy(s);
        s.setSpeculation(QStringLiteral("draft"));
        for (const QString& draft : {otherVocabulary, damaged}) {
            s.setDraftModelPath(draft);
            const auto result = reply(b, kRepeating);
            QVERIFY(result);
            QVERIFY(!result->stats.speculative);
            QVERIFY(!result->stats.speculation_error.empty());
            const MessageRecord& last = b.chat()->messages()->messages().constLast();
            QCOMPARE(last.state, MessageState::Complete);
            QVERIFY(!last.content.isEmpty());
            const QString message = b.chat()->errorMessage();
            QVERIFY2(message.contains(draft), qPrintable(message));
            QVERIFY2(message.contains(storiesModelPath()), qPrintable(message));
        }
        // A usable draft (tiny-qwen2: stories260K's vocabulary, fewer parameters) drafts, and the
        // message goes with the next reply.
        s.setDraftModelPath(QString::fromStdString(testdata("models/tiny-qwen2.gguf")));
        const auto usable = reply(b, kRepeating);
        QVERIFY(usable);
        QVERIFY2(usable->stats.speculation_error.empty(), usable->stats.speculation_error.c_str());
        QVERIFY(usable->stats.speculative);
        QVERIFY(usable->stats.drafted_tokens > 0);
        QVERIFY2(b.chat()->errorMessage().isEmpty(), qPrintable(b.chat()->errorMessage()));
    }
};

QTEST_MAIN(TestAppSpeculation)
#include "test_app_speculation.moc"
