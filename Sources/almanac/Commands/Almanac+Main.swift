import ArgumentParser
import Foundation

extension Almanac {
    /// Parses the arguments, runs the command and exits with the documented code: usage errors exit 2 (not
    /// ArgumentParser's 64), client errors print one line on stderr.
    static func runAndExit(_ arguments: [String]? = nil) -> Never {
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
            Foundation.exit(0)
        } catch let error as ClientError {
            FileHandle.standardError.write(Data((error.description + "\n").utf8))
            Foundation.exit(error.exitStatus.rawValue)
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
                Foundation.exit(0)
            }
            FileHandle.standardError.write(Data((message + "\n").utf8))
            Foundation.exit(code == .validationFailure ? ClientError.ExitStatus.usage.rawValue : code.rawValue)
        }
    }
}
