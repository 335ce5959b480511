#pragma once
// The chat sessions of several conversations, kept at once within a memory budget.
// The least recently used are evicted first (saved to the state directory, when one
// is given, so that they resume instantly); switching back to a conversation still
// in memory costs nothing. Keyed by the caller's conversation id. A conversation's other
// branches (an edited message, a regenerated reply) keep their states too: a turn whose
// prompt leaves the cached tokens saves the cache as a branch state first, and a turn on a
// branch that was left brings its state back instead of prefilling it. Not thread-safe:
// meant for the one inference thread.
#include "engine/session/chat_session.h"
#include <cstddef>
#include <list>
#include <memory>
#include <string>
#include <vector>

namespace hearth::engine {

struct SessionStoreOptions {
    int32_t n_ctx = 4096;
    size_t memory_budget_bytes = size_t{1} << 30; // of touched KV memory over all conversations
    std::string state_dir;                        // where states are saved; empty: never saved
    KvStateFormat saved_format = KvStateFormat::F16;
    bool save_on_close = true; // the destructor saves every conversation in memory
    // Branch states: a cache is kept as one when at least this many of its tokens are not the
    // next turn's; at most this many per conversation, the least recently written removed first.
    int32_t min_branch_tokens = 16;
    int max_branch_states = 4;
};

// One turn of a conversation: the assistant's reply to what the conversation asks. A view:
// what it refers to must outlive the run_turn call.
struct TurnRequest {
    std::string conversation_id;            // the store's key for the conversation's session
    std::span<const ChatTurn> conversation; // every turn so far, ending with the user's
    GenerationOptions options;
    const std::atomic<bool>* stop = nullptr; // checked between tokens; null: never stopped
    bool keep_branches = true;               // false: no branch states (sessions never saved)
};

class SessionStore {
public:
    // Its sessions publish their live figures to `metrics`, which must outlive the store; from
    // now until the store goes, `metrics` shows the expert counts of `inference`.
    SessionStore(Inference& inference, SessionStoreOptions options, EngineMetrics& metrics);
    ~SessionStore();
    SessionStore(const SessionStore&) = delete;
    SessionStore& operator=(const SessionStore&) = delete;

    // Runs one turn: brings the conversation's session into memory (as session() does), has
    // it reply, streaming the text to `on_piece`, then evicts beyond the budget (the cache has
    // grown). Throws hearth::Error as ChatSession::reply does; the conversation's cache is then
    // dropped, and its next turn starts afresh.
    TurnResult run_turn(const TurnRequest& request, const PieceCallback& on_piece);

    // The conversation's session, made the most recently used: from memory, else restored
    // from its saved state (checked against `options`' template), else empty. Evicts
    // others beyond the budget.
    ChatSession& session(const std::string& id, const GenerationOptions& options = {});

    bool in_memory(const std::string& id) const;
    std::vector<std::string> ids() const; // in memory, most recently used first
    size_t bytes() const;                 // touched KV memory of the conversations in memory
    void set_memory_budget(size_t bytes);
    void set_saved_format(KvStateFormat format) { options_.saved_format = format; } // for later saves
    // The image projector every session reads images with, from now on (ChatSession::set_image_encoder).
    void set_image_encoder(std::shared_ptr<vision::ImageEncoder> encoder);

    // Writes the conversation's state (if in memory and not empty); throws hearth::Error
    // when it cannot be written. No-op without a state directory.
    void save(const std::string& id);
    void save_all();
    // Saves (when possible) and drops the conversation from memory.
    void evict(const std::string& id);
    // Drops it from memory and deletes its saved states, branches included: the conversation
    // was deleted.
    void forget(const std::string& id);
    // Drops everything from memory without saving (e.g. the model is unloaded).
    void clear();

    // Brings the KV rows every conversation in memory holds on a device to host memory
    // (KvCache::detach_device), before the forward pass moves to another device
    // (Inference::set_device): its old device's memory is freed, and the next turn sends the
    // rows to the new one. A cache whose device cannot be read any more (lost) forgets its
    // tokens instead: that conversation is computed afresh on its next turn.
    void move_caches_to_host();

    // The file a conversation's state is saved to.
    std::string state_path(const std::string& id) const;
    // The same for any state directory, without a store (e.g. no model is loaded).
    static std::string state_path_in(const std::string& state_dir, const std::string& id);
    // The conversation's saved branch states, newest first.
    std::vector<std::string> branch_state_paths(const std::string& id) const;
    // Deletes a conversation's saved state and its branch states in `state_dir`.
    static void remove_saved_states(const std::string& state_dir, const std::string& id);
    // The first failure to save while evicting, if any (eviction itself never throws).
    const std::string& last_save_error() const { return last_save_error_; }

private:
    struct Entry {
        std::string id;
        std::unique_ptr<ChatSession> session;
    };
    struct Resumed {
        ChatSession& session;
        ResumeInfo resume;
    };
    Resumed resume(const std::string& id, const GenerationOptions& options);
    std::list<Entry>::iterator find(const std::string& id);
    std::list<Entry>::const_iterator find(const std::string& id) const;
    void save_entry(const Entry& entry);
    // Before a turn: keeps the cache as a branch state when the turn leaves it, and brings back
    // the saved branch that shares the most with the turn's prompt when it shares more.
    void switch_branch(const TurnRequest& request, ChatSession& chat, ResumeInfo& info);
    void enforce_budget();
    void publish() const;

    Inference& inference_;
    SessionStoreOptions options_;
    EngineMetrics& metrics_;
    std::shared_ptr<const ModelIdentity> identity_;
    std::list<Entry> entries_; // most recently used first
    std::string last_save_error_;
    std::shared_ptr<vision::ImageEncoder> image_encoder_;
};

} // namespace hearth::engine
