// hearth-cli serve -m MODEL [--mmproj FILE] [--host 127.0.0.1] [--port P] [--api-key K]
// [--allow-origin ORIGIN]... [--allow-host NAME]... [--lookup N | --draft MODEL] [--draft-max K]: the
// app's OpenAI-compatible API server without the window, with speculative decoding for every request
// if asked. It prints the URL it listens on (one line on stderr; --port 0 picks a free port) and
// serves until SIGINT, SIGTERM or SIGHUP. With --mmproj (the model's image projector) requests may
// carry images (image_url content parts holding data URLs); without it they are refused. Web pages
// may call it only from an allowed origin, and clients must name a loopback host or an allowed one
// (server/front_door.h).
#include "app/cli/cli_args.h"
#include "app/cli/cli_command.h"
#include "app/cli/generation_flags.h"
#include "app/cli/model_options.h"
#include "app/platform/quit_on_signals.h"
#include "app/server/api_server.h"
#include "app/server/engine_thread_backend.h"
#include <QCoreApplication>
#include <QHostAddress>
#include <csignal>
#include <cstdio>

namespace hearth::cli {
namespace {

int run_serve(const std::vector<std::string>& argv) {
    std::set<std::string> value_options = model_value_options(
        {"--mmproj", "--host", "--port", "--api-key", "--allow-origin", "--allow-host", "-c", "--ctx-size"});
    value_options.merge(speculation_value_options());
    Args args(argv, value_options, {});
    const std::string model_path = args.required("-m", "--model");
    const QString host = QString::fromStdString(args.value("--host").value_or("127.0.0.1"));
    QHostAddress address;
    if (!address.setAddress(host))
        throw ArgError("--host expects an IP address, got '" + host.toStdString() + "'");
    const int port = args.get_int("--port", 8642);
    if (port < 0 || port > 65535) throw ArgError("--port expects 0 to 65535 (0: any free port)");
    const engine::RuntimeConfig config = runtime_config(args, 4096);
    if (config.context_length < 16) throw ArgError("--ctx-size expects at least 16 tokens");
    engine::SpeculationOptions speculation;
    apply_speculation_flags(args, speculation);
    QStringList allowedOrigins;
    for (const std::string& origin : args.values("--allow-origin")) {
        const QString text = QString::fromStdString(origin);
        if (const QString error = server::FrontDoor::originPatternError(text); !error.isEmpty())
            throw ArgError("--allow-origin: " + error.toStdString());
        allowedOrigins.append(text);
    }
    QStringList allowedHosts;
    for (const std::string& name : args.values("--allow-host")) {
        const QString text = QString::fromStdString(name);
        if (const QString error = server::FrontDoor::hostNameError(text); !error.isEmpty())
            throw ArgError("--allow-host: " + error.toStdString());
        allowedHosts.append(text);
    }

    int qtArgc = 1;
    char programName[] = "hearth-cli";
    char* qtArgv[] = {programName, nullptr};
    QCoreApplication app(qtArgc, qtArgv);

    server::EngineThreadBackend backend(model_path, config); // throws on a bad model
    backend.prepareSpeculation(speculation);                 // and on a draft that cannot draft
    if (const auto mmproj = args.value("--mmproj")) backend.loadImageProjector(*mmproj); // and on a bad one
    server::ApiServer api(&backend);
    api.setApiKey(QString::fromStdString(args.value("--api-key").value_or("")));
    api.setAllowedOrigins(allowedOrigins);
    api.setAllowedHosts(allowedHosts);
    api.setSpeculation(speculation);
    if (!api.listen(address, static_cast<quint16>(port))) {
        std::fprintf(stderr, "hearth-cli serve: %s\n", qPrintable(api.errorString()));
        return kExitFailure;
    }

    // SIGINT, SIGTERM and SIGHUP end the event loop; the API stops before the engine does.
    process::quitOnTerminationSignals(app);
    QObject::connect(&app, &QCoreApplication::aboutToQuit, &api, [&api] {
        std::fprintf(stderr, "hearth-cli serve: stopping\n");
        api.close(); // cancels what is generating, so the engine thread ends soon
    });
    std::signal(SIGPIPE, SIG_IGN);

    QObject::connect(&api, &server::ApiServer::completionServed, [](const server::CompletionResult& r) {
        const engine::TurnStats& s = r.stats;
        std::fprintf(stderr, "served: %d prompt tokens (%d reused), %d generated, %.1f tokens/s\n",
                     s.prompt_tokens, s.reused_tokens, s.generated_tokens, s.decode_tokens_per_second());
        if (s.images > 0)
            std::fprintf(stderr, "images: %d (%d encoded in %.3f s, %d prompt positions)\n", s.images,
                         s.images_encoded, s.image_encode_seconds, s.image_positions);
        if (!s.speculation_error.empty())
            std::fprintf(stderr, "speculation: off for this request: %s\n", s.speculation_error.c_str());
        else if (s.speculative)
            std::fprintf(stderr,
                         "speculation: %d verify passes, %d drafted, %d accepted (%.1f%%), %.2f tokens per "
                         "verify pass\n",
                         s.verify_passes, s.drafted_tokens, s.accepted_tokens, 100.0 * s.acceptance_rate(),
                         s.tokens_per_verify_pass());
        std::fflush(stderr);
    });
    std::fprintf(stderr, "hearth-cli serve: %s, context %d, speculative decoding %s, images %s\n",
                 qPrintable(backend.modelId()), backend.contextLength(),
                 describe_speculation(speculation).c_str(),
                 args.has("--mmproj") ? "read" : "refused (no --mmproj)");
    std::fprintf(stderr, "listening on %s\n", qPrintable(api.url()));
    std::fflush(stderr);
    app.exec();
    return kExitOk;
}

} // namespace
HEARTH_CLI_COMMAND(
    "serve", run_serve,
    "serve -m MODEL [--mmproj FILE (the model's image projector: requests may carry images)] "
    "[--host 127.0.0.1] [--port P (8642; 0: any free)] [--api-key K] "
    "[--allow-origin ORIGIN (repeatable: a web page allowed to call, e.g. http://localhost:3000; "
    "port * for any; * for all)] [--allow-host NAME (repeatable: a host name besides localhost, "
    "127.0.0.1, [::1] and the --host address)] [-c CTX] [-t N] [--device cpu|vulkan|vulkan:N] [-ngl N] "
    "[--lookup N (1-4) | --draft MODEL] [--draft-max K (1-16): speculative decoding for every request]");
} // namespace hearth::cli
