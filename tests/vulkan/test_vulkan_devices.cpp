// The Vulkan devices as the backend lists them: lavapipe (Mesa's llvmpipe, Vulkan on the CPU,
// installed here and in CI) is listed with sane properties, best_device picks a usable device,
// a Context opens it (with the validation layer, which must be installed), and a bad device
// index gives a clear error. Skipped only where no Vulkan device exists at all.
#include "kernels/vulkan/vulkan_context.h"
#include "kernels/vulkan/vulkan_devices.h"
#include "kernels/vulkan/vulkan_ops.h"
#include "kernels/vulkan/vulkan_state.h"

#include <QTest>
#include <algorithm>
#include <cstdlib>
#include <filesystem>

using namespace hearth::kernels::vulkan;

class TestVulkanDevices : public QObject {
    Q_OBJECT

    std::vector<DeviceInfo> devices_;

private slots:
    void initTestCase() {
        devices_ = list_devices();
        for (const DeviceInfo& d : devices_)
            qInfo("%s", describe(d).c_str());
    }

    void lavapipe_is_listed_with_sane_properties() {
        if (devices_.empty()) QSKIP("no Vulkan device on this machine (no driver, or no loader)");
        const auto lavapipe = std::find_if(devices_.begin(), devices_.end(), [](const DeviceInfo& d) {
            return d.driver_name == "llvmpipe" || d.name.find("llvmpipe") != std::string::npos;
        });
        QVERIFY2(lavapipe != devices_.end(), "lavapipe (mesa-vulkan-drivers) is not listed");
        QCOMPARE(lavapipe->type, std::string("cpu"));
        QVERIFY(lavapipe->api_version >= (1u << 22 | 2u << 12)); // Vulkan 1.2 or later
        QVERIFY(lavapipe->unusable_reason.empty());
        QVERIFY(lavapipe->device_local_bytes >= (uint64_t{64} << 20));
        QVERIFY(lavapipe->subgroup_size >= 1 && lavapipe->subgroup_size <= 128);
        QVERIFY(!lavapipe->driver_info.empty());
        for (size_t i = 0; i < devices_.size(); ++i) {
            QCOMPARE(devices_[i].index, static_cast<int>(i));
            QVERIFY(!devices_[i].name.empty());
            // A heap's budget is at most its size (VK_EXT_memory_budget), so is what is free of it.
            if (devices_[i].device_local_free_bytes)
                QVERIFY(*devices_[i].device_local_free_bytes <= devices_[i].device_local_bytes);
            const std::string& t = devices_[i].type;
            QVERIFY(t == "discrete" || t == "integrated" || t == "virtual" || t == "cpu" || t == "other");
        }
    }

    void best_device_prefers_real_gpus() {
        if (devices_.empty()) QSKIP("no Vulkan device on this machine (no driver, or no loader)");
        const int best = best_device(devices_);
        QVERIFY(best >= 0 && best < static_cast<int>(devices_.size()));
        QVERIFY(devices_[static_cast<size_t>(best)].unusable_reason.empty());
        // A made-up list: discrete beats integrated beats cpu, whatever the order.
        std::vector<DeviceInfo> made_up(3);
        made_up[0].index = 0, made_up[0].type = "cpu";
        made_up[1].index = 1, made_up[1].type = "discrete";
        made_up[2].index = 2, made_up[2].type = "integrated";
        QCOMPARE(best_device(made_up), 1);
        made_up[1].unusable_reason = "Vulkan 1.1 (the backend needs 1.2)";
        QCOMPARE(best_device(made_up), 2);
        QCOMPARE(best_device({}), -1);
    }

    void context_opens_the_best_device_with_validation() {
        if (devices_.empty()) QSKIP("no Vulkan device on this machine (no driver, or no loader)");
        ContextOptions options;
        options.validation = true;
        const auto cache =
            std::filesystem::path(HEARTH_TEST_ARTIFACT_DIR) / "vulkan-devices" / "pipelines.bin";
        std::filesystem::remove(cache);
        options.pipeline_cache_path = cache.string();
        {
            Context context(options);
            QVERIFY(context.validation_enabled());
            QCOMPARE(context.device().index, best_device(devices_));
            Buffer buffer(context, 1000);
            std::vector<uint8_t> in(1000), out(1000);
            for (size_t i = 0; i < in.size(); ++i)
                in[i] = static_cast<uint8_t>(i * 7);
            buffer.upload(in.data(), in.size());
            buffer.download(out.data(), out.size());
            QVERIFY(in == out);
            Buffer host(context, 64, Memory::HostVisible);
            host.upload(in.data(), 64);
            host.download(out.data(), 64, 0);
            QVERIFY(std::equal(in.begin(), in.begin() + 64, out.begin()));
            QVERIFY_THROWS_EXCEPTION(Error, buffer.upload(in.data(), 10, 995));
            QCOMPARE(context.validation_errors(), uint64_t{0});
        }
        QVERIFY2(std::filesystem::exists(cache), "the pipeline cache was not written");
    }

    void validation_counts_errors_and_follows_the_environment() {
        if (devices_.empty()) QSKIP("no Vulkan device on this machine (no driver, or no loader)");
        qputenv("HEARTH_VULKAN_VALIDATION", "1");
        Context context; // validation from the environment alone
        qunsetenv("HEARTH_VULKAN_VALIDATION");
        QVERIFY(context.validation_enabled());
        QCOMPARE(context.validation_errors(), uint64_t{0});
        // A buffer without usage flags breaks a valid-usage rule of vkCreateBuffer: the
        // messenger must count it (drivers create it anyway).
        ContextState& state = context.state();
        auto info = vk_struct<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
        info.size = 64;
        info.usage = 0;
        VkBuffer buffer = VK_NULL_HANDLE;
        if (vkCreateBuffer(state.device, &info, nullptr, &buffer) == VK_SUCCESS)
            vkDestroyBuffer(state.device, buffer, nullptr);
        QVERIFY(context.validation_errors() >= 1);
        QVERIFY(!context.last_validation_message().empty());
        Context quiet; // off by default
        QVERIFY(!quiet.validation_enabled());
    }

    void out_of_memory_is_an_exception() {
        if (devices_.empty()) QSKIP("no Vulkan device on this machine (no driver, or no loader)");
        Context context;
        const uint64_t heap = context.device().device_local_bytes;
        QString message;
        try {
            Buffer huge(context, static_cast<size_t>(heap) * 64);
        } catch (const OutOfDeviceMemory& e) {
            message = e.what();
        } catch (const Error& e) {
            message = QString("not OutOfDeviceMemory: ") + e.what();
        }
        QVERIFY2(message.contains("out of memory") && message.contains("MiB"), qPrintable(message));
        Buffer fine(context, 4096); // the context still works
        QCOMPARE(fine.size(), size_t{4096});
    }

    void buffers_and_recorders_may_outlive_their_context() {
        if (devices_.empty()) QSKIP("no Vulkan device on this machine (no driver, or no loader)");
        auto context = std::make_unique<Context>();
        Buffer buffer(*context, 16 * sizeof(float), Memory::HostVisible);
        Recorder recorder(*context);
        context.reset();
        const std::vector<float> ones(16, 1.0f);
        buffer.upload(ones.data(), 16 * sizeof(float));
        recorder.begin();
        recorder.scale({&buffer, 0}, 16, 3.0f);
        recorder.submit_and_wait();
        std::vector<float> out(16);
        buffer.download(out.data(), 16 * sizeof(float));
        QCOMPARE(out, std::vector<float>(16, 3.0f));
    }

    void bad_index_gives_a_clear_error() {
        if (devices_.empty()) QSKIP("no Vulkan device on this machine (no driver, or no loader)");
        ContextOptions options;
        options.device_index = static_cast<int>(devices_.size()) + 3;
        QString message;
        try {
            Context context(options);
        } catch (const Error& e) {
            message = e.what();
        }
        QVERIFY2(message.contains(QString("no device vulkan:%1").arg(options.device_index)),
                 qPrintable(message));
        QVERIFY2(message.contains("vulkan:0"), qPrintable(message));
    }
};

QTEST_GUILESS_MAIN(TestVulkanDevices)
#include "test_vulkan_devices.moc"
