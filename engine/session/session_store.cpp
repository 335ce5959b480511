#include "engine/session/session_store.h"
#include "engine/error.h"
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <unistd.h>

namespace hearth::engine {

namespace fs = std::filesystem;

namespace {

// A state is written to NAME.tmp-PID and renamed; a process killed before the rename leaves
// the temporary file. Those of processes that no longer run are removed.
void remove_abandoned_temporaries(const std::string& state_dir) {
    std::error_code error;
    for (const fs::directory_entry& entry : fs::directory_iterator(state_dir, error)) {
        const std::string name = entry.path().filename().string();
        const size_t at = name.rfind(".tmp-");
        if (at == std::string::npos || at + 5 >= name.size()) continue;
        const std::string digits = name.substr(at + 5);
        if (!std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); }))
            continue;
        const long pid = std::stol(digits);
        if (pid == ::getpid() || (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM)) continue;
        fs::remove(entry.path(), error);
    }
}

} // namespace

SessionStore::SessionStore(Inference& inference, SessionStoreOptions options, EngineMetrics& metrics)
    : inference_(inference), options_(std::move(options)), metrics_(metrics) {
    if (options_.n_ctx <= 0) throw Error("session store: the context length must be positive");
    if (!options_.state_dir.empty()) remove_abandoned_temporaries(options_.state_dir);
    metrics_.show_expert_hits(inference_.expert_hits());
}

SessionStore::~SessionStore() {
    metrics_.stop_showing_expert_hits(inference_.expert_hits().get());
    if (!options_.save_on_close) return;
    for (const Entry& entry : entries_) {
        try {
            save_entry(entry);
        } catch (const std::exception&) {
            // Losing a saved state costs a re-prefill later, never the conversation itself.
        }
    }
}

std::list<SessionStore::Entry>::iterator SessionStore::find(const std::string& id) {
    return std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.id == id; });
}
std::list<SessionStore::Entry>::const_iterator SessionStore::find(const std::string& id) const {
    return std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.id == id; });
}

std::string SessionStore::state_path(const std::string& id) const {
    return state_path_in(options_.state_dir, id);
}

namespace {

// Ids become file names: keep the plain characters, escape the rest as %XX.
std::string file_name_of(const std::string& id) {
    std::string name;
    for (const unsigned char c : id) {
        if (std::isalnum(c) || c == '-' || c == '_') {
            name += static_cast<char>(c);
        } else {
            static constexpr char hex[] = "0123456789abcdef";
            name += '%';
            name += hex[c >> 4];
            name += hex[c & 15];
        }
    }
    return name;
}

constexpr std::string_view kBranchInfix = ".branch-";
constexpr std::string_view kStateSuffix = ".hkv";

// The branch states of the conversation whose file name is `name`: NAME.branch-HASH.hkv.
std::vector<fs::path> branch_files(const std::string& state_dir, const std::string& name) {
    std::vector<fs::path> found;
    const std::string prefix = name + std::string(kBranchInfix);
    std::error_code error;
    for (const fs::directory_entry& entry : fs::directory_iterator(state_dir, error)) {
        const std::string file = entry.path().filename().string();
        if (file.size() > prefix.size() + kStateSuffix.size() && file.starts_with(prefix) &&
            file.ends_with(kStateSuffix))
            found.push_back(entry.path());
    }
    return found;
}

fs::file_time_type written_at(const fs::path& path) {
    std::error_code error;
    const fs::file_time_type time = fs::last_write_time(path, error);
    return error ? fs::file_time_type::min() : time;
}

} // namespace

std::string SessionStore::state_path_in(const std::string& state_dir, const std::string& id) {
    if (state_dir.empty()) return {};
    return (fs::path(state_dir) / (file_name_of(id) + std::string(kStateSuffix))).string();
}

std::vector<std::string> SessionStore::branch_state_paths(const std::string& id) const {
    if (options_.state_dir.empty()) return {};
    std::vector<fs::path> files = branch_files(options_.state_dir, file_name_of(id));
    std::sort(files.begin(), files.end(),
              [](const fs::path& a, const fs::path& b) { return written_at(a) > written_at(b); });
    std::vector<std::string> paths;
    for (const fs::path& file : files)
        paths.push_back(file.string());
    return paths;
}

void SessionStore::remove_saved_states(const std::string& state_dir, const std::string& id) {
    if (state_dir.empty()) return;
    std::error_code ignored;
    fs::remove(state_path_in(state_dir, id), ignored);
    for (const fs::path& file : branch_files(state_dir, file_name_of(id)))
        fs::remove(file, ignored);
}

ChatSession& SessionStore::session(const std::string& id, const GenerationOptions& options) {
    return resume(id, options).session;
}

SessionStore::Resumed SessionStore::resume(const std::string& id, const GenerationOptions& options) {
    ResumeInfo info;
    if (auto it = find(id); it != entries_.end()) {
        entries_.splice(entries_.begin(), entries_, it);
        info.from_memory = true;
        return {*entries_.front().session, std::move(info)};
    }
    if (!identity_ && !options_.state_dir.empty())
        identity_ = std::make_shared<const ModelIdentity>(model_identity(inference_.model()));
    auto session = std::make_unique<ChatSession>(inference_, options_.n_ctx, &metrics_, identity_);
    session->set_image_encoder(image_encoder_);
    if (const std::string path = state_path(id); !path.empty() && fs::exists(path)) {
        const auto start = std::chrono::steady_clock::now();
        const KvRestoreResult restored = session->restore_state(path, options);
        info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        info.restored = restored.restored;
        info.tokens = restored.tokens;
        info.reason = restored.reason;
        (restored.restored ? metrics_.states_restored : metrics_.states_rejected).fetch_add(1);
        // A state that does not fit is useless from now on: remove it so it is not read again.
        std::error_code ignored;
        if (!restored.restored) fs::remove(path, ignored);
    }
    entries_.push_front({id, std::move(session)});
    enforce_budget();
    publish();
    return {*entries_.front().session, std::move(info)};
}

void SessionStore::switch_branch(const TurnRequest& request, ChatSession& chat, ResumeInfo& info) {
    KvCache& cache = chat.cache();
    std::vector<int32_t> prompt;
    try {
        prompt = chat.prompt_tokens(request.conversation, request.options);
    } catch (const std::exception&) {
        return; // the reply says what is wrong with the template
    }
    const int32_t shared = cache.common_prefix(prompt);
    const bool shifted = !cache.dropped().empty();
    const std::string name = file_name_of(request.conversation_id);
    std::error_code error;

    // The turn leaves the cached tokens: they are another branch of the conversation, unless
    // the prompt goes on with the same text in other tokens (a reply sampled in tokens that
    // the text does not tokenize back to).
    const auto leaves_the_cache = [&] {
        const tokenizer::Tokenizer& vocab = inference_.model().tokenizer();
        const std::span<const int32_t> cached(cache.tokens());
        const std::string left = vocab.decode(cached.subspan(static_cast<size_t>(shared)), true);
        const std::string ahead =
            vocab.decode(std::span<const int32_t>(prompt).subspan(static_cast<size_t>(shared)), true);
        return !ahead.starts_with(left);
    };
    if (!shifted && cache.size() - shared >= std::max(1, options_.min_branch_tokens) && leaves_the_cache()) {
        const std::span<const int32_t> tokens(cache.tokens());
        char hash[17];
        std::snprintf(hash, sizeof hash, "%016llx",
                      static_cast<unsigned long long>(hash_bytes(tokens.data(), tokens.size_bytes())));
        const fs::path path = fs::path(options_.state_dir) /
                              (name + std::string(kBranchInfix) + hash + std::string(kStateSuffix));
        try {
            fs::create_directories(options_.state_dir);
            chat.save_state(path.string(), options_.saved_format);
        } catch (const std::exception& e) {
            if (last_save_error_.empty()) last_save_error_ = e.what();
        }
        std::vector<std::string> kept = branch_state_paths(request.conversation_id);
        for (size_t i = static_cast<size_t>(std::max(0, options_.max_branch_states)); i < kept.size(); ++i)
            fs::remove(kept[i], error);
    }

    // A branch left earlier that this turn continues further than the cache does.
    std::string best;
    size_t best_shared = static_cast<size_t>(shared);
    for (const std::string& path : branch_state_paths(request.conversation_id)) {
        const std::optional<std::vector<int32_t>> tokens = read_kv_state_tokens(path);
        if (!tokens) continue;
        const auto [end, unused] =
            std::mismatch(tokens->begin(), tokens->end(), prompt.begin(), prompt.end());
        const auto common = static_cast<size_t>(end - tokens->begin());
        if (common > best_shared) best_shared = common, best = path;
    }
    if (best.empty()) return;
    const auto start = std::chrono::steady_clock::now();
    const KvRestoreResult restored = chat.restore_state(best, request.options);
    if (restored.restored) {
        info.restored = info.branch = true;
        info.tokens = restored.tokens;
        info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        metrics_.states_restored.fetch_add(1);
    } else {
        metrics_.states_rejected.fetch_add(1);
    }
    // In memory now (or useless): the branch is saved again when a turn leaves it.
    fs::remove(best, error);
}

TurnResult SessionStore::run_turn(const TurnRequest& request, const PieceCallback& on_piece) {
    auto [chat, resume_info] = resume(request.conversation_id, request.options);
    if (request.keep_branches && !options_.state_dir.empty()) switch_branch(request, chat, resume_info);
    // The caches' size goes out with each piece: a new conversation's cache grows from nothing
    // while its first reply is written, and the metrics show it growing.
    const PieceCallback publish_with_piece = [&](std::string_view piece) {
        publish();
        if (on_piece) on_piece(piece);
    };
    try {
        TurnResult result{chat.reply(request.conversation, request.options, publish_with_piece, request.stop),
                          std::move(resume_info)};
        enforce_budget();
        publish();
        return result;
    } catch (...) {
        // The cache may hold a half-finished turn: start this conversation afresh next time.
        entries_.remove_if([&](const Entry& e) { return e.id == request.conversation_id; });
        publish();
        throw;
    }
}

void SessionStore::move_caches_to_host() {
    for (const Entry& entry : entries_) {
        KvCache& cache = entry.session->cache();
        try {
            cache.detach_device();
        } catch (const std::exception&) {
            cache.drop_device();
        }
    }
    publish();
}

bool SessionStore::in_memory(const std::string& id) const {
    return find(id) != entries_.end();
}

std::vector<std::string> SessionStore::ids() const {
    std::vector<std::string> ids;
    for (const Entry& e : entries_)
        ids.push_back(e.id);
    return ids;
}

size_t SessionStore::bytes() const {
    size_t total = 0;
    for (const Entry& e : entries_)
        total += e.session->cache().resident_bytes();
    return total;
}

void SessionStore::set_memory_budget(size_t bytes) {
    options_.memory_budget_bytes = bytes;
    enforce_budget();
    publish();
}

void SessionStore::save_entry(const Entry& entry) {
    const std::string path = state_path(entry.id);
    if (path.empty() || entry.session->cache().size() == 0) return;
    fs::create_directories(options_.state_dir);
    entry.session->save_state(path, options_.saved_format);
}

void SessionStore::save(const std::string& id) {
    if (auto it = find(id); it != entries_.end()) save_entry(*it);
}

void SessionStore::save_all() {
    for (const Entry& e : entries_)
        save_entry(e);
}

void SessionStore::evict(const std::string& id) {
    auto it = find(id);
    if (it == entries_.end()) return;
    try {
        save_entry(*it);
    } catch (const std::exception& e) {
        if (last_save_error_.empty()) last_save_error_ = e.what();
    }
    entries_.erase(it);
    publish();
}

void SessionStore::forget(const std::string& id) {
    entries_.remove_if([&](const Entry& e) { return e.id == id; });
    remove_saved_states(options_.state_dir, id);
    publish();
}

void SessionStore::clear() {
    entries_.clear();
    publish();
}

void SessionStore::enforce_budget() {
    // The most recent conversation stays even alone over budget: it is the one in use.
    while (entries_.size() > 1 && bytes() > options_.memory_budget_bytes)
        evict(entries_.back().id);
}

void SessionStore::publish() const {
    metrics_.kv_bytes.store(static_cast<int64_t>(bytes()), std::memory_order_relaxed);
    metrics_.kv_sessions.store(static_cast<int64_t>(entries_.size()), std::memory_order_relaxed);
}

void SessionStore::set_image_encoder(std::shared_ptr<vision::ImageEncoder> encoder) {
    image_encoder_ = std::move(encoder);
    for (Entry& entry : entries_)
        entry.session->set_image_encoder(image_encoder_);
}

} // namespace hearth::engine
