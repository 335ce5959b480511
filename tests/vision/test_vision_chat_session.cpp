// Images in a conversation (ChatSession with an image encoder), on tiny-gemma3 and its F32
// projector: the prompt a message with an image becomes is the command line's image prompt, token
// for token and logit for logit (that one meets the float64 reference: test_vision_reference), and
// the greedy reply is the reference's; the next turn reuses the image's cache positions instead of
// evaluating it again, and another picture is evaluated afresh; the encoder's cache serves the same
// picture to another conversation; a saved state with image positions is resumed; a model without
// a projector, a damaged image and the marker typed in the text are clear errors.
#include "engine/error.h"
#include "engine/forward/inference.h"
#include "engine/model/model.h"
#include "engine/session/chat_session.h"
#include "engine/vision/chat_image_file.h"
#include "engine/vision/image_decode.h"
#include "engine/vision/image_encoder.h"
#include "engine/vision/image_prompt.h"
#include "tests/vision/vision_reference.h"
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>

using namespace hearth;

namespace {

constexpr int32_t kThreads = 2;
constexpr const char* kProjector = "mmproj-tiny-gemma3-f32";
// Renders a user turn as the reference's "chat" prompt: its image marker, then its text.
constexpr const char* kTurnTemplate =
    "{% for m in messages %}<start_of_turn>{{ m['role'] }}\n{{ m['content'] }}<end_of_turn>\n{% endfor %}"
    "{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}";
constexpr const char* kChatPromptText =
    "<start_of_turn>user\n<__media__>Describe this image.<end_of_turn>\n<start_of_turn>model\n";

chat::ChatImage image(const std::string& name) {
    return vision::chat_image_from_file(test::vision_data("images/" + name));
}

engine::ChatTurn user_turn(std::string text, std::vector<chat::ChatImage> images = {}) {
    engine::ChatTurn turn{chat::Role::User, std::move(text)};
    turn.images = std::move(images);
    return turn;
}

engine::GenerationOptions greedy(int32_t max_tokens) {
    engine::GenerationOptions options;
    options.sampling.temperature = 0;
    options.max_tokens = max_tokens;
    options.template_override = kTurnTemplate;
    return options;
}

struct Fixture {
    std::shared_ptr<const engine::Model> model = engine::Model::load(test::vision_text_model());
    engine::Inference inference{model, engine::InferenceOptions{kThreads, 64}};
    std::shared_ptr<vision::ImageEncoder> encoder =
        std::make_shared<vision::ImageEncoder>(vision::load_vision_projector(
            test::vision_data(std::string(kProjector) + ".gguf"), {.n_threads = kThreads,
                                                                   .device = {},
                                                                   .text_n_embd = model->hparams().n_embd,
                                                                   .text_model_path = {}}));

    std::unique_ptr<engine::ChatSession> session(int32_t n_ctx = 512) {
        auto made = std::make_unique<engine::ChatSession>(inference, n_ctx);
        made->set_image_encoder(encoder);
        return made;
    }
};

// The reply's tokens, greedy.
struct Reply {
    engine::TurnStats stats;
    std::vector<int32_t> tokens;
    std::string text;
};
Reply reply(engine::ChatSession& session, std::span<const engine::ChatTurn> conversation,
            int32_t max_tokens) {
    Reply out;
    out.stats = session.reply(
        conversation, greedy(max_tokens), [&](std::string_view piece) { out.text += piece; }, nullptr,
        [&](int32_t token) { out.tokens.push_back(token); });
    return out;
}

int32_t count_image_positions(std::span<const int32_t> tokens) {
    return static_cast<int32_t>(std::count_if(
        tokens.begin(), tokens.end(), [](int32_t t) { return engine::KvCache::is_image_position(t); }));
}

} // namespace

class TestVisionChatSession : public QObject {
    Q_OBJECT
private slots:
    void an_image_message_is_the_command_lines_image_prompt() {
        Fixture f;
        const test::ProjectorReference reference = test::read_projector_reference(kProjector);
        const auto run = std::find_if(reference.prompts.begin(), reference.prompts.end(),
                                      [](const test::ImagePromptReference& r) { return r.prompt == "chat"; });
        QVERIFY(run != reference.prompts.end());
        QCOMPARE(run->text, std::string(kChatPromptText));
        const std::vector<engine::ChatTurn> conversation{
            user_turn("Describe this image.", {image(run->image)})};

        // The layout: the reference's chunks, the image's positions recorded by the picture's id.
        auto session = f.session();
        const std::vector<int32_t> tokens = session->prompt_tokens(conversation, greedy(8));
        QCOMPARE(static_cast<int32_t>(tokens.size()), run->n_prompt_positions);
        QVERIFY(std::equal(run->before.begin(), run->before.end(), tokens.begin()));
        QVERIFY(std::equal(run->after.begin(), run->after.end(),
                           tokens.end() - static_cast<long>(run->after.size())));
        const int32_t id = engine::KvCache::image_position_id(conversation[0].images[0].id);
        for (int32_t p = run->image_first; p <= run->image_last; ++p)
            QCOMPARE(tokens[static_cast<size_t>(p)], id);

        // The logits after the prompt: the command line's image prompt, bit for bit.
        const engine::ChatSession::Prefill prefilled = session->prefill(conversation, greedy(8));
        const vision::ImagePrompt prompt =
            vision::layout_image_prompt(f.model->tokenizer(), run->text, f.encoder->projector());
        std::vector<float> embeddings(static_cast<size_t>(f.encoder->projector().n_image_tokens()) *
                                      f.encoder->projector().n_embd());
        f.encoder->projector().encode(
            f.encoder->projector().canvas(vision::decode_image(*conversation[0].images[0].bytes, "image")),
            embeddings.data());
        auto cache = f.inference.new_cache(128);
        const std::span<const float> expected =
            vision::eval_image_prompt(f.inference, *cache, prompt, embeddings);
        QVERIFY(
            std::equal(expected.begin(), expected.end(), prefilled.logits.begin(), prefilled.logits.end()));
        QCOMPARE(prefilled.stats.images, 1);
        QCOMPARE(prefilled.stats.image_positions, run->image_last - run->image_first + 1);

        // The greedy reply: the reference's tokens.
        auto fresh = f.session();
        const Reply answered = reply(*fresh, conversation, static_cast<int32_t>(run->greedy_tokens.size()));
        QCOMPARE(answered.tokens, run->greedy_tokens);
        QCOMPARE(answered.stats.images, 1);
        QCOMPARE(answered.stats.images_encoded, 0); // the encoder's cache had the picture from the prefill
        QVERIFY(!answered.stats.speculative);
    }

    void the_next_turn_reuses_the_image_and_another_picture_is_evaluated() {
        Fixture f;
        auto session = f.session();
        std::vector<engine::ChatTurn> conversation{
            user_turn("Describe this image.", {image("shapes-96x64.png")})};
        const Reply first = reply(*session, conversation, 6);
        QCOMPARE(first.stats.images, 1);
        QCOMPARE(first.stats.images_encoded, 1);
        QVERIFY(first.stats.image_encode_seconds > 0);
        conversation.push_back({chat::Role::Assistant, first.text});
        conversation.push_back(user_turn("And the colours?"));

        const std::vector<int32_t> prompt = session->prompt_tokens(conversation, greedy(6));
        const Reply second = reply(*session, conversation, 6);
        QCOMPARE(second.stats.images, 0); // already in the cache
        QCOMPARE(second.stats.image_positions, 0);
        const auto last_image_position = static_cast<int32_t>(
            std::find_if(prompt.rbegin(), prompt.rend(), [](int32_t t) { return t < 0; }).base() -
            prompt.begin());
        QVERIFY2(second.stats.reused_tokens >= last_image_position,
                 qPrintable(QStringLiteral("reused %1 of %2 positions, the image ends at %3")
                                .arg(second.stats.reused_tokens)
                                .arg(second.stats.prompt_tokens)
                                .arg(last_image_position)));

        // The same turns from scratch in another conversation: the same reply.
        auto scratch = f.session();
        const Reply recomputed = reply(*scratch, conversation, 6);
        QCOMPARE(recomputed.tokens, second.tokens);
        QCOMPARE(recomputed.stats.images, 1);
        QCOMPARE(recomputed.stats.images_encoded, 0); // the encoder's cache, by the picture's id

        // Another picture in the first message: evaluated afresh from where the prompts part.
        conversation[0].images = {image("rings-30x42.png")};
        const Reply changed = reply(*session, conversation, 6);
        QCOMPARE(changed.stats.images, 1);
        QCOMPARE(changed.stats.images_encoded, 1);
        const int32_t first_image_position = static_cast<int32_t>(
            std::find_if(prompt.begin(), prompt.end(), [](int32_t t) { return t < 0; }) - prompt.begin());
        QVERIFY(changed.stats.reused_tokens <= first_image_position);
        auto other = f.session();
        QCOMPARE(reply(*other, conversation, 6).tokens, changed.tokens);
    }

    void two_images_in_one_message_and_one_in_a_later_turn() {
        Fixture f;
        auto session = f.session();
        std::vector<engine::ChatTurn> conversation{
            user_turn("Compare them.", {image("grad-56x56.png"), image("shapes-96x64.png")})};
        const Reply first = reply(*session, conversation, 4);
        QCOMPARE(first.stats.images, 2);
        conversation.push_back({chat::Role::Assistant, first.text});
        conversation.push_back(user_turn("And this one?", {image("rings-30x42.png")}));
        const std::vector<int32_t> prompt = session->prompt_tokens(conversation, greedy(4));
        QCOMPARE(count_image_positions(prompt), 3 * f.encoder->projector().n_image_tokens());
        const Reply second = reply(*session, conversation, 4);
        QCOMPARE(second.stats.images, 1); // only the new one
        auto scratch = f.session();
        QCOMPARE(reply(*scratch, conversation, 4).tokens, second.tokens);
    }

    // The engine's live figures (the metrics panel's): the last prompt's images, their positions
    // and the encoding time; none when the next turn finds the image in the cache.
    void the_metrics_show_the_images_of_the_last_prompt() {
        Fixture f;
        engine::EngineMetrics metrics;
        engine::ChatSession session(f.inference, 512, &metrics);
        session.set_image_encoder(f.encoder);
        std::vector<engine::ChatTurn> conversation{
            user_turn("Compare them.", {image("grad-56x56.png"), image("rings-30x42.png")})};
        const Reply first = reply(session, conversation, 3);
        engine::EngineMetricsSnapshot shown = metrics.snapshot();
        QCOMPARE(shown.images, 2);
        QCOMPARE(shown.images_encoded, 2);
        QCOMPARE(shown.image_positions, 2 * f.encoder->projector().n_image_tokens());
        QVERIFY(shown.image_encode_ms > 0);
        conversation.push_back({chat::Role::Assistant, first.text});
        conversation.push_back(user_turn("Thanks."));
        reply(session, conversation, 3);
        shown = metrics.snapshot();
        QCOMPARE(shown.images, 0);
        QCOMPARE(shown.image_positions, 0);
    }

    void a_saved_state_with_an_image_resumes() {
        Fixture f;
        QTemporaryDir dir;
        const std::string path = dir.filePath("state.kv").toStdString();
        std::vector<engine::ChatTurn> conversation{
            user_turn("Describe this image.", {image("grad-56x56.png")})};
        auto session = f.session();
        const Reply first = reply(*session, conversation, 5);
        session->save_state(path);
        conversation.push_back({chat::Role::Assistant, first.text});
        conversation.push_back(user_turn("More?"));
        const Reply continued = reply(*session, conversation, 5);

        auto resumed = f.session();
        QVERIFY(resumed->restore_state(path, greedy(5)).restored);
        const Reply after_restore = reply(*resumed, conversation, 5);
        QCOMPARE(after_restore.stats.images, 0); // its positions came back with the state
        QVERIFY(after_restore.stats.reused_tokens > f.encoder->projector().n_image_tokens());
        QCOMPARE(after_restore.tokens, continued.tokens);
    }

    void a_model_without_a_projector_refuses_images() {
        Fixture f;
        engine::ChatSession session(f.inference, 256); // no encoder
        const std::vector<engine::ChatTurn> conversation{
            user_turn("Describe this image.", {image("grad-56x56.png")})};
        try {
            session.reply(conversation, greedy(4), {});
            QFAIL("an image was read without a projector");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).starts_with("this model reads no images"), e.what());
        }
        // Without images it chats.
        const engine::TurnStats stats = session.reply(std::vector{user_turn("Hello")}, greedy(3), {});
        QVERIFY(stats.generated_tokens > 0 || stats.stop_reason == engine::StopReason::EndOfGeneration);
    }

    void a_damaged_image_is_named_and_the_conversation_goes_on() {
        Fixture f;
        auto session = f.session();
        std::vector<uint8_t> bytes = *image("grad-56x56.png").bytes;
        bytes.resize(bytes.size() / 2);
        const std::vector<engine::ChatTurn> damaged{
            user_turn("Describe this image.", {vision::chat_image_from_bytes(bytes, "holiday.png")})};
        try {
            reply(*session, damaged, 4);
            QFAIL("a cut PNG was read");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).starts_with("holiday.png: "), e.what());
        }
        const std::vector<engine::ChatTurn> good{
            user_turn("Describe this image.", {image("grad-56x56.png")})};
        auto fresh = f.session();
        QCOMPARE(reply(*session, good, 4).tokens, reply(*fresh, good, 4).tokens);
    }

    void the_marker_typed_in_the_text_is_refused_with_images() {
        Fixture f;
        auto session = f.session();
        const std::vector<engine::ChatTurn> conversation{
            user_turn("What is <__media__>?", {image("grad-56x56.png")})};
        try {
            reply(*session, conversation, 2);
            QFAIL("the typed marker was taken for an image");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("<__media__>") != std::string::npos, e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestVisionChatSession)
#include "test_vision_chat_session.moc"
