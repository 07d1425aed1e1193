/// What each kind of file object tells the property table (FileProperties).
extension AudioFileReader {
    public var facts: FileProperties.Facts {
        var f = FileProperties.Facts(.read)
        f.fileType = fileType
        f.format = format
        f.magicCookie = magicCookie
        f.dataByteCount = dataByteCount
        f.packetCount = packetCount
        f.maximumPacketSize = maximumPacketSize
        f.packetSizeUpperBound = maximumPacketSize
        f.dataOffset = dataOffset
        f.packetTable = packetTable
        f.estimatedDuration = estimatedDuration
        f.bitRate = bitRate
        f.sourceBitDepth = sourceBitDepth
        return f
    }
}

extension AudioFileWriter {
    /// What is written so far (the counts grow with each packet).
    public var facts: FileProperties.Facts {
        var f = FileProperties.Facts(.written)
        f.fileType = fileType
        f.format = format
        f.magicCookie = magicCookie
        f.dataByteCount = byteCount
        f.packetCount = packetCount
        f.maximumPacketSize = maximumPacketSize
        f.packetSizeUpperBound = maximumPacketSize
        f.packetTable = packetTable
        return f
    }
}

extension AudioFileStreamParser {
    /// What the bytes parsed so far say: nothing of the data before its header is read.
    public var facts: FileProperties.Facts {
        var f = FileProperties.Facts(.stream)
        f.readyToProducePackets = isReady
        f.fileType = fileType
        f.bitRate = bitRate
        guard let info else { return f }
        f.format = info.format
        f.magicCookie = info.magicCookie
        f.dataByteCount = info.dataByteCount
        f.packetCount = info.packetCount
        f.maximumPacketSize = info.maximumPacketSize
        f.packetSizeUpperBound = info.packetSizeUpperBound
        f.dataOffset = info.dataOffset
        f.packetTable = info.packetTable
        f.averageBytesPerPacket = averageBytesPerPacket
        return f
    }
}
