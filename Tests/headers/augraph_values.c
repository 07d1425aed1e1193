/* The audio graph header (<AudioToolbox/AUGraph.h>), through <AudioToolbox/AudioToolbox.h>
 * as on the phone, against the iPhone SDK (iOS 7): the result codes and interaction
 * types as numbers, the structs' layouts (LP64), the Mac's sub-graph and old connection
 * calls absent, and every function with its exact type, taken into a table so that the
 * program does not link if the library lacks one. Prints "augraph-values ok". */
#include <AudioToolbox/AudioToolbox.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
#define STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif
#define VALUE(name, value) STATIC_ASSERT((name) == (value), #name)
#define OFFSET(type, member, value) STATIC_ASSERT(offsetof(type, member) == (value), #type "." #member)

VALUE(kAUGraphErr_NodeNotFound, -10860);
VALUE(kAUGraphErr_InvalidConnection, -10861);
VALUE(kAUGraphErr_OutputNodeErr, -10862);
VALUE(kAUGraphErr_CannotDoInCurrentContext, -10863);
VALUE(kAUGraphErr_InvalidAudioUnit, -10864);
VALUE(kAUNodeInteraction_Connection, 1);
VALUE(kAUNodeInteraction_InputCallback, 2);

STATIC_ASSERT(sizeof(AUNode) == 4, "AUNode is SInt32");
STATIC_ASSERT(sizeof(AUNodeConnection) == 16, "sizeof AUNodeConnection");
OFFSET(AUNodeConnection, sourceNode, 0);
OFFSET(AUNodeConnection, sourceOutputNumber, 4);
OFFSET(AUNodeConnection, destNode, 8);
OFFSET(AUNodeConnection, destInputNumber, 12);
STATIC_ASSERT(sizeof(AUNodeRenderCallback) == 24, "sizeof AUNodeRenderCallback");
OFFSET(AUNodeRenderCallback, destNode, 0);
OFFSET(AUNodeRenderCallback, destInputNumber, 4);
OFFSET(AUNodeRenderCallback, cback, 8);
STATIC_ASSERT(sizeof(AUNodeInteraction) == 32, "sizeof AUNodeInteraction");
OFFSET(AUNodeInteraction, nodeInteractionType, 0);
OFFSET(AUNodeInteraction, nodeInteraction, 8);

/* Not on the phone: sub-graphs and the Mac's older node calls. */
#ifdef AUGraphNewNodeSubGraph
#error "AUGraphNewNodeSubGraph is the Mac's"
#endif
static int AUGraphNewNodeSubGraph;
static int AUGraphGetNodeInfoSubGraph;
static int AUGraphIsNodeSubGraph;
static int AUGraphNewNode;
static int AUGraphGetNodeInfo;
static int AUGraphGetNumberOfConnections;
static int AUGraphGetConnectionInfo;
static int AUGraphCountNodeConnections;
static int AUGraphGetNodeConnections;

int main(void)
{
    /* A name the header declared as a function would clash with these (the build fails). */
    int absent = AUGraphNewNodeSubGraph + AUGraphGetNodeInfoSubGraph + AUGraphIsNodeSubGraph + AUGraphNewNode +
                 AUGraphGetNodeInfo + AUGraphGetNumberOfConnections + AUGraphGetConnectionInfo +
                 AUGraphCountNodeConnections + AUGraphGetNodeConnections;
    OSStatus (*const typed_NewAUGraph)(AUGraph *) = NewAUGraph;
    OSStatus (*const typed_DisposeAUGraph)(AUGraph) = DisposeAUGraph;
    OSStatus (*const typed_AUGraphAddNode)(AUGraph, const AudioComponentDescription *, AUNode *) = AUGraphAddNode;
    OSStatus (*const typed_AUGraphRemoveNode)(AUGraph, AUNode) = AUGraphRemoveNode;
    OSStatus (*const typed_AUGraphGetNodeCount)(AUGraph, UInt32 *) = AUGraphGetNodeCount;
    OSStatus (*const typed_AUGraphGetIndNode)(AUGraph, UInt32, AUNode *) = AUGraphGetIndNode;
    OSStatus (*const typed_AUGraphNodeInfo)(AUGraph, AUNode, AudioComponentDescription *, AudioUnit *) = AUGraphNodeInfo;
    OSStatus (*const typed_AUGraphConnectNodeInput)(AUGraph, AUNode, UInt32, AUNode, UInt32) = AUGraphConnectNodeInput;
    OSStatus (*const typed_AUGraphSetNodeInputCallback)(AUGraph, AUNode, UInt32, const AURenderCallbackStruct *) =
        AUGraphSetNodeInputCallback;
    OSStatus (*const typed_AUGraphDisconnectNodeInput)(AUGraph, AUNode, UInt32) = AUGraphDisconnectNodeInput;
    OSStatus (*const typed_AUGraphClearConnections)(AUGraph) = AUGraphClearConnections;
    OSStatus (*const typed_AUGraphGetNumberOfInteractions)(AUGraph, UInt32 *) = AUGraphGetNumberOfInteractions;
    OSStatus (*const typed_AUGraphGetInteractionInfo)(AUGraph, UInt32, AUNodeInteraction *) = AUGraphGetInteractionInfo;
    OSStatus (*const typed_AUGraphCountNodeInteractions)(AUGraph, AUNode, UInt32 *) = AUGraphCountNodeInteractions;
    OSStatus (*const typed_AUGraphGetNodeInteractions)(AUGraph, AUNode, UInt32 *, AUNodeInteraction *) =
        AUGraphGetNodeInteractions;
    OSStatus (*const typed_AUGraphUpdate)(AUGraph, Boolean *) = AUGraphUpdate;
    OSStatus (*const typed_AUGraphOpen)(AUGraph) = AUGraphOpen;
    OSStatus (*const typed_AUGraphClose)(AUGraph) = AUGraphClose;
    OSStatus (*const typed_AUGraphInitialize)(AUGraph) = AUGraphInitialize;
    OSStatus (*const typed_AUGraphUninitialize)(AUGraph) = AUGraphUninitialize;
    OSStatus (*const typed_AUGraphStart)(AUGraph) = AUGraphStart;
    OSStatus (*const typed_AUGraphStop)(AUGraph) = AUGraphStop;
    OSStatus (*const typed_AUGraphIsOpen)(AUGraph, Boolean *) = AUGraphIsOpen;
    OSStatus (*const typed_AUGraphIsInitialized)(AUGraph, Boolean *) = AUGraphIsInitialized;
    OSStatus (*const typed_AUGraphIsRunning)(AUGraph, Boolean *) = AUGraphIsRunning;
    OSStatus (*const typed_AUGraphGetCPULoad)(AUGraph, Float32 *) = AUGraphGetCPULoad;
    OSStatus (*const typed_AUGraphGetMaxCPULoad)(AUGraph, Float32 *) = AUGraphGetMaxCPULoad;
    OSStatus (*const typed_AUGraphAddRenderNotify)(AUGraph, AURenderCallback, void *) = AUGraphAddRenderNotify;
    OSStatus (*const typed_AUGraphRemoveRenderNotify)(AUGraph, AURenderCallback, void *) = AUGraphRemoveRenderNotify;
    void (*const functions[])(void) = {
        (void (*)(void))typed_NewAUGraph, (void (*)(void))typed_DisposeAUGraph, (void (*)(void))typed_AUGraphAddNode,
        (void (*)(void))typed_AUGraphRemoveNode, (void (*)(void))typed_AUGraphGetNodeCount,
        (void (*)(void))typed_AUGraphGetIndNode, (void (*)(void))typed_AUGraphNodeInfo,
        (void (*)(void))typed_AUGraphConnectNodeInput, (void (*)(void))typed_AUGraphSetNodeInputCallback,
        (void (*)(void))typed_AUGraphDisconnectNodeInput, (void (*)(void))typed_AUGraphClearConnections,
        (void (*)(void))typed_AUGraphGetNumberOfInteractions, (void (*)(void))typed_AUGraphGetInteractionInfo,
        (void (*)(void))typed_AUGraphCountNodeInteractions, (void (*)(void))typed_AUGraphGetNodeInteractions,
        (void (*)(void))typed_AUGraphUpdate, (void (*)(void))typed_AUGraphOpen, (void (*)(void))typed_AUGraphClose,
        (void (*)(void))typed_AUGraphInitialize, (void (*)(void))typed_AUGraphUninitialize,
        (void (*)(void))typed_AUGraphStart, (void (*)(void))typed_AUGraphStop, (void (*)(void))typed_AUGraphIsOpen,
        (void (*)(void))typed_AUGraphIsInitialized, (void (*)(void))typed_AUGraphIsRunning,
        (void (*)(void))typed_AUGraphGetCPULoad, (void (*)(void))typed_AUGraphGetMaxCPULoad,
        (void (*)(void))typed_AUGraphAddRenderNotify, (void (*)(void))typed_AUGraphRemoveRenderNotify,
    };
    STATIC_ASSERT(sizeof functions / sizeof functions[0] == 29, "function count");
    for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++)
        if (functions[i] == NULL) return 1;
    if (absent != 0) return 2;
    printf("augraph-values ok\n");
    return 0;
}
