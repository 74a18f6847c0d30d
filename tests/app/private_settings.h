// Remembered state (QSettings) for one suite process alone. ctest runs a suite and its one-core
// twin at once from the same executable, so a shared test location let one read the other's
// language or dialog choices mid-test.
#pragma once
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>

namespace testing {

class PrivateSettings {
public:
    PrivateSettings()
    {
        QStandardPaths::setTestModeEnabled(true); // everything else Qt remembers: a test location
        for (const auto format : {QSettings::NativeFormat, QSettings::IniFormat})
            QSettings::setPath(format, QSettings::UserScope, m_dir.path());
    }
    bool isValid() const { return m_dir.isValid(); }

private:
    QTemporaryDir m_dir;
};

} // namespace testing
