// Fuzz target: the API server's HTTP request parser and its front door (Qt Core and Network),
// the first code a network peer's bytes reach. Besides not crashing: the same bytes give the
// same requests whether they arrive at once or in two pieces; a complete request's body has its
// Content-Length; an error is one of the parser's statuses; the front door refuses with a 4xx
// status and a message, and never answers a request from a foreign origin with CORS headers.
#include "app/server/front_door.h"
#include "app/server/http_request_parser.h"
#include "tests/fuzz/fuzz_support.h"
#include <QList>

namespace {

using hearth::server::FrontDoor;
using hearth::server::FrontDoorDecision;
using hearth::server::HttpLimits;
using hearth::server::HttpRequest;
using hearth::server::HttpRequestParser;

struct Outcome {
    QList<HttpRequest> requests;
    int errorStatus = 0;
};

constexpr int kMaxRequests = 16; // pipelined in one input

void keepTaking(HttpRequestParser& parser, HttpRequestParser::State state, Outcome& outcome) {
    while (state == HttpRequestParser::State::Complete && outcome.requests.size() < kMaxRequests) {
        outcome.requests.append(parser.take());
        state = parser.parse();
    }
    if (state == HttpRequestParser::State::Error) outcome.errorStatus = parser.errorStatus();
}

Outcome parseInPieces(const QByteArray& bytes, qsizetype split) {
    HttpRequestParser parser(HttpLimits{4096, 32, 65536});
    Outcome outcome;
    keepTaking(parser, parser.feed(bytes.left(split)), outcome);
    if (outcome.errorStatus == 0 && outcome.requests.size() < kMaxRequests)
        keepTaking(parser, parser.feed(bytes.mid(split)), outcome);
    return outcome;
}

bool sameRequest(const HttpRequest& a, const HttpRequest& b) {
    return a.method == b.method && a.path == b.path && a.version == b.version && a.headers == b.headers &&
           a.body == b.body;
}

void checkFrontDoor(const HttpRequest& request) {
    FrontDoor strict;
    FrontDoor open;
    open.setAllowedOrigins(
        {QStringLiteral("http://localhost:3000"), QStringLiteral("https://app.example:*")});
    open.setAllowedHosts({QStringLiteral("hearth.lan")});
    for (const FrontDoor* door : {&strict, &open}) {
        const FrontDoorDecision decision = door->screen(request);
        if (decision.kind == FrontDoorDecision::Kind::Refuse &&
            (decision.error.status < 400 || decision.error.status > 499 || decision.error.message.isEmpty()))
            hearth::fuzz::invariant_failed("a refusal without a 4xx status and a message");
        const QByteArray origin = request.header("origin");
        for (const auto& [name, value] : decision.headers)
            if (name == "Access-Control-Allow-Origin" && door == &strict && value != origin)
                hearth::fuzz::invariant_failed("CORS headers for another origin than the request's");
    }
    // The strict door admits no DNS name but localhost: the property DNS rebinding tests. (An
    // address literal, which no attacker's name resolves through, may pass.)
    if (strict.screen(request).kind != FrontDoorDecision::Kind::Refuse) {
        QByteArray host = request.header("host").toLower();
        if (host.startsWith("localhost")) host = host.mid(9);
        for (const char c : host)
            if (c >= 'g' && c <= 'z') hearth::fuzz::invariant_failed("a foreign host name was admitted");
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const QByteArray bytes(reinterpret_cast<const char*>(data) + 1, static_cast<qsizetype>(size - 1));
    const qsizetype split = bytes.isEmpty() ? 0 : data[0] % (bytes.size() + 1);
    const Outcome whole = parseInPieces(bytes, bytes.size());
    const Outcome pieces = parseInPieces(bytes, split);
    if (whole.requests.size() != pieces.requests.size() || whole.errorStatus != pieces.errorStatus)
        hearth::fuzz::invariant_failed("two pieces parse otherwise than the whole");
    for (qsizetype i = 0; i < whole.requests.size(); ++i)
        if (!sameRequest(whole.requests[i], pieces.requests[i]))
            hearth::fuzz::invariant_failed("a request differs when its bytes come in two pieces");
    static const QList<int> statuses{400, 413, 417, 431, 501, 505};
    if (whole.errorStatus != 0 && !statuses.contains(whole.errorStatus))
        hearth::fuzz::invariant_failed("an unexpected error status " + std::to_string(whole.errorStatus));
    for (const HttpRequest& request : whole.requests) {
        const QByteArray length = request.header("content-length");
        if (request.body.size() != (length.isEmpty() ? 0 : length.toLongLong()))
            hearth::fuzz::invariant_failed("a body that is not its Content-Length");
        checkFrontDoor(request);
    }
    return 0;
}
