// The four-character codes are the core's vocabulary (categories, modes, property IDs,
// result codes): whoever uses the core uses them too.
@_exported import FourCharCodes
